package org.kafscale.proxy.core.backend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.logging.RateLimitedLog;
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
    /** A broker that fails fails every request sent to it: one line per interval says so. */
    private final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);

    private final long requestTimeoutMillis;

    public BackendForwarder(long requestTimeoutMillis) {
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    /**
     * Sends the frame to the first of {@code brokers} that a connection can be made to, trying them
     * in turn (wrapping around) for up to {@code connect.attempts()} connection attempts. Only the
     * connection is retried: once the frame is written, its answer or failure is final.
     *
     * @param frame the bytes to send; ownership passes here
     */
    public Future<Reply> forwardToFirstReachable(ConnectionContext context, RequestFrame request, List<BrokerEndpoint> brokers,
                                          ConnectAttempts connect, ByteBuf frame, long extraWaitMillis,
                                          Errors failureError) {
        Promise<Reply> reply = context.newReply();
        connectAndSend(context, request, brokers, connect, 0, frame, extraWaitMillis, failureError, reply);
        return reply;
    }

    private void connectAndSend(ConnectionContext context, RequestFrame request, List<BrokerEndpoint> brokers,
                                ConnectAttempts connect, int attempt, ByteBuf frame, long extraWaitMillis,
                                Errors failureError, Promise<Reply> reply) {
        BrokerEndpoint broker = brokers.get(attempt % brokers.size());
        context.backends().acquire(broker).addListener(acquired -> {
            if (!acquired.isSuccess()) {
                if (attempt + 1 < connect.attempts() && !reply.isDone()) {
                    context.atDebug(LOGGER).log("{} from client {}: no connection to {} ({}); trying again",
                            request.describe(), context.clientAddress(), broker, acquired.cause().getMessage());
                    context.loop().schedule(() -> connectAndSend(context, request, brokers, connect, attempt + 1, frame,
                            extraWaitMillis, failureError, reply), connect.backoff().toMillis(), TimeUnit.MILLISECONDS);
                    return;
                }
                frame.release();
                Replies.settle(reply, failed(context, request, broker, acquired.cause(), failureError));
                return;
            }
            BackendChannel channel = (BackendChannel) acquired.getNow();
            Future<ByteBuf> answer = channel.request(frame, requestTimeoutMillis + extraWaitMillis);
            answer.addListener(done -> {
                if (done.isSuccess()) {
                    Replies.settle(reply, Reply.send(answer.getNow()));
                } else {
                    Replies.settle(reply, failed(context, request, broker, done.cause(), failureError));
                }
            });
        });
    }

    /** Completes the reply unless it already is (the client went away); a reply not taken is released. */

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
                    body = parser.apply(ResponseFrames.body(api, version, bytes));
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

    private Reply failed(ConnectionContext context, RequestFrame request, BrokerEndpoint broker, Throwable cause,
                                Errors error) {
        if (BackendException.cancelled(cause)) {
            context.atDebug(LOGGER).log("{} from client {} cancelled: {}", request.describe(), context.clientAddress(),
                    cause.getMessage());
            return Replies.error(request, error);
        }
        failures.warn(context, "{} from client {} failed at {}: {}; answering {}", request.describe(),
                context.clientAddress(), broker, cause.getMessage(), error.name());
        return Replies.error(request, error);
    }
}
