package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A request the proxy makes on its own behalf (discovery, probes, LFS), and what it reads from
 * the answer. {@link OutboundRequests} makes them; the sender picks a version between
 * {@link #oldestVersion()} and {@link #latestVersion()} that the broker serves too.
 *
 * <p>Underneath are kafka-clients' request builders, which know what each version of a request
 * can carry (one coordinator key before FindCoordinator v4, topic names before Produce v13);
 * callers see only the generated {@code *Data} classes.
 *
 * @param <T> what the caller reads from the answer
 */
public final class OutboundRequest<T> {
    /** The channel that sends the frame numbers its requests itself. */
    private static final int UNNUMBERED = 0;

    private final AbstractRequest.Builder<?> builder;
    private final Function<AbstractResponse, T> reader;

    OutboundRequest(AbstractRequest.Builder<?> builder, Function<AbstractResponse, T> reader) {
        this.builder = builder;
        this.reader = reader;
    }

    public ApiKeys api() {
        return builder.apiKey();
    }

    public short oldestVersion() {
        return builder.oldestAllowedVersion();
    }

    public short latestVersion() {
        return builder.latestAllowedVersion();
    }

    /**
     * The request at {@code version} with its header, without the size prefix; correlation id 0.
     *
     * @throws RuntimeException (Kafka's UnsupportedVersionException) when this request cannot be
     *                          said at {@code version}
     */
    public ByteBuf encode(short version, String clientId) {
        AbstractRequest request = builder.build(version);
        return Unpooled.wrappedBuffer(request.serializeWithHeader(
                new RequestHeader(api(), version, clientId, UNNUMBERED)));
    }

    /**
     * Reads the broker's answer to this request sent at {@code version}.
     *
     * @param frame header and body, no size prefix; read, not released
     * @throws RuntimeException (Kafka's SchemaException and friends) when the answer does not parse
     */
    public T decodeAnswer(short version, ByteBuf frame) {
        return reader.apply(AbstractResponse.parseResponse(api(), ResponseFrames.body(api(), version, frame), version));
    }
}
