package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a client frame into a {@link RequestFrame} by reading its header only.
 *
 * <p>Header versions come from kafka-clients: flexible versions carry a tagged-field section
 * (header v2). A key kafka-clients does not know is read as header v1 (no tagged fields) and
 * stays opaque. A header that does not parse closes the connection with a log line, and every
 * frame after it (the rest of the same read) is dropped: none of them may reach a handler.
 */
public final class RequestHeaderDecoder extends MessageToMessageDecoder<ByteBuf> {
    private static final Logger LOGGER = LoggerFactory.getLogger(RequestHeaderDecoder.class);
    /** api_key, api_version, correlation_id and the client id's length. */
    private static final int MIN_HEADER_BYTES = 2 + 2 + 4 + 2;
    private static final short OPAQUE_HEADER_VERSION = 1;

    private final RateLimitedLog rejections;
    private boolean rejected;

    /** A decoder that logs its refusals on its own (tests, tools); a listener shares {@link #rejectionLog()}. */
    public RequestHeaderDecoder() {
        this(rejectionLog());
    }

    /** @param rejections where refused headers are logged, shared by every connection of a listener */
    public RequestHeaderDecoder(RateLimitedLog rejections) {
        this.rejections = rejections;
    }

    /** A log for refused headers: one per listener, since a client can send any number of them. */
    public static RateLimitedLog rejectionLog() {
        return RateLimitedLog.every10Seconds(LOGGER);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        if (rejected) {
            return;
        }
        RequestFrame request;
        try {
            request = parse(frame);
        } catch (RuntimeException e) {
            rejected = true;
            rejections.warn(LogFields.of(ctx.channel()),
                    "Closing connection from client {}: request header does not parse ({} bytes): {}",
                    ClientAddress.of(ctx.channel()), frame.readableBytes(), e.toString());
            ctx.close();
            return;
        }
        out.add(request);
    }

    /** Parses the header of {@code frame}; the returned value holds a retained reference to it. */
    static RequestFrame parse(ByteBuf frame) {
        if (frame.readableBytes() < MIN_HEADER_BYTES) {
            throw new IllegalArgumentException("frame of " + frame.readableBytes()
                    + " bytes is shorter than the smallest request header (" + MIN_HEADER_BYTES + ")");
        }
        short apiKey = frame.getShort(frame.readerIndex());
        short apiVersion = frame.getShort(frame.readerIndex() + 2);
        short headerVersion = ApiKeys.hasId(apiKey)
                ? ApiKeys.forId(apiKey).requestHeaderVersion(apiVersion)
                : OPAQUE_HEADER_VERSION;
        ByteBuffer view = ParseViews.readable(frame);
        int start = view.position();
        RequestHeaderData header = new RequestHeaderData(new ByteBufferAccessor(view), headerVersion);
        int headerLength = view.position() - start;
        return new RequestFrame(apiKey, apiVersion, header.correlationId(), header.clientId(),
                headerLength, frame.retain());
    }
}
