package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;

/** Small helpers for building {@link Reply} futures on a connection's event loop. */
public final class Replies {
    private Replies() {
    }

    public static Future<Reply> now(EventLoop loop, Reply reply) {
        return loop.newSucceededFuture(reply);
    }

    /** Kafka's error answer for the request at its version, or a close when no answer can be built. */
    public static Reply error(RequestFrame request, Errors error) {
        try {
            return Reply.send(ResponseFrames.errorResponse(request, error));
        } catch (RuntimeException e) {
            return new Reply.Close("cannot answer " + request.describe() + " with " + error.name() + ": " + e);
        }
    }

    /**
     * Completes a reply on {@code loop} from a stage that may complete on any thread; a stage
     * that fails closes the connection with its cause.
     */
    public static Future<Reply> onLoop(EventLoop loop, CompletionStage<Reply> stage) {
        Promise<Reply> promise = loop.newPromise();
        stage.whenComplete((reply, error) -> {
            if (loop.inEventLoop()) {
                settle(promise, reply, error);
            } else {
                loop.execute(() -> settle(promise, reply, error));
            }
        });
        return promise;
    }

    private static void settle(Promise<Reply> promise, Reply reply, Throwable error) {
        if (error != null) {
            promise.setSuccess(new Reply.Close(String.valueOf(error)));
        } else {
            settle(promise, reply);
        }
    }

    /**
     * Completes {@code promise} with {@code reply}, or releases the reply when the promise was
     * completed already (the connection's deadline answered first, or the connection closed).
     */
    public static void settle(Promise<Reply> promise, Reply reply) {
        if (!promise.trySuccess(reply)) {
            reply.discard();
        }
    }
}
