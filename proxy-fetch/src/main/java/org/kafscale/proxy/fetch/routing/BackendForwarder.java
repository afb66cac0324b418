package org.kafscale.proxy.fetch.routing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.ResponseHeader;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BackendChannel;
import org.kafscale.proxy.core.backend.BackendException;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one request frame to one broker over the connection's pooled channel and turns the
 * broker's answer into the client's reply, unchanged but for the correlation id (which the
 * connection handler restores). A broker failure becomes Kafka's error answer for the request
 * with {@code failureError}, a code clients retry after refreshing metadata.
 */
public final class BackendForwarder {
    private static final Logger LOGGER = LoggerFactory.getLogger(BackendForwarder.class);

    private final long requestTimeoutMillis;

    public BackendForwarder(long requestTimeoutMillis) {
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    /**
     * @param frame the bytes to send; ownership passes here
     * @param extraWaitMillis time the broker may legitimately hold the request (a Fetch's max wait)
     */
    Future<Reply> forward(ConnectionContext context, RequestFrame request, BrokerEndpoint broker, ByteBuf frame,
                          long extraWaitMillis, Errors failureError) {
        Promise<Reply> reply = context.newReply();
        context.backends().acquire(broker).addListener(acquired -> {
            if (!acquired.isSuccess()) {
                frame.release();
                reply.setSuccess(failed(context, request, broker, acquired.cause(), failureError));
                return;
            }
            BackendChannel channel = (BackendChannel) acquired.getNow();
            Future<ByteBuf> answer = channel.request(frame, requestTimeoutMillis + extraWaitMillis);
            answer.addListener(done -> {
                if (done.isSuccess()) {
                    if (!reply.trySuccess(Reply.send(answer.getNow()))) {
                        answer.getNow().release();
                    }
                } else {
                    reply.setSuccess(failed(context, request, broker, done.cause(), failureError));
                }
            });
        });
        return reply;
    }

    /**
     * Sends one frame to one broker and completes with its answer, parsed; or fails with the
     * {@link BackendException} that says why. An answer that does not parse closes its channel
     * (never reused) and fails as {@link BackendException.Cause#BAD_RESPONSE}, so callers retry it
     * like a broken connection instead of passing garbage on.
     *
     * @param idleChannel use a channel with nothing in flight (long-poll Fetches)
     * @param parser reads the body that follows the response header
     */
    public <T> Future<Answer<T>> exchange(ConnectionContext context, BrokerEndpoint broker, ByteBuf frame,
                                          long extraWaitMillis, boolean idleChannel, ApiKeys api, short version,
                                          Function<ByteBufferAccessor, T> parser) {
        Promise<Answer<T>> answer = context.loop().newPromise();
        Future<BackendChannel> channel = idleChannel ? context.backends().acquireIdle(broker)
                : context.backends().acquire(broker);
        channel.addListener(acquired -> {
            if (!acquired.isSuccess()) {
                frame.release();
                answer.setFailure(acquired.cause());
                return;
            }
            BackendChannel backend = (BackendChannel) acquired.getNow();
            Future<ByteBuf> sent = backend.request(frame, requestTimeoutMillis + extraWaitMillis);
            sent.addListener(done -> {
                if (!done.isSuccess()) {
                    answer.tryFailure(done.cause());
                    return;
                }
                ByteBuf bytes = sent.getNow();
                T body;
                try {
                    ByteBuffer view = bytes.nioBuffer();
                    ResponseHeader.parse(view, api.responseHeaderVersion(version));
                    body = parser.apply(new ByteBufferAccessor(view));
                } catch (RuntimeException e) {
                    String reason = api.name + " v" + version + " answer does not parse (" + bytes.readableBytes()
                            + " bytes, starting " + ByteBufUtil.hexDump(bytes, bytes.readerIndex(),
                            Math.min(32, bytes.readableBytes())) + "): " + e;
                    bytes.release();
                    backend.closeUnparseable(reason);
                    answer.tryFailure(new BackendException(BackendException.Cause.BAD_RESPONSE, true, broker + ": " + reason));
                    return;
                }
                if (!answer.trySuccess(new Answer<>(bytes, body))) {
                    bytes.release();
                }
            });
        });
        return answer;
    }

    /** Sends a frame that has no answer (acks=0) to one broker; completes when written. */
    public Future<Void> send(ConnectionContext context, BrokerEndpoint broker, ByteBuf frame) {
        Promise<Void> written = context.loop().newPromise();
        context.backends().acquire(broker).addListener(acquired -> {
            if (acquired.isSuccess()) {
                ((BackendChannel) acquired.getNow()).send(frame).addListener(w -> {
                    if (w.isSuccess()) {
                        written.trySuccess(null);
                    } else {
                        written.tryFailure(w.cause());
                    }
                });
            } else {
                frame.release();
                written.tryFailure(acquired.cause());
            }
        });
        return written;
    }

    private static Reply failed(ConnectionContext context, RequestFrame request, BrokerEndpoint broker, Throwable cause,
                                Errors error) {
        if (cause instanceof BackendException backend && backend.failure() == BackendException.Cause.CANCELLED) {
            LOGGER.debug("{} from client {} cancelled: {}", request.describe(), context.clientAddress(), cause.getMessage());
            return Replies.error(request, error);
        }
        LOGGER.warn("{} from client {} failed at {}: {}; answering {}", request.describe(), context.clientAddress(),
                broker, cause.getMessage(), error.name());
        return Replies.error(request, error);
    }
}
