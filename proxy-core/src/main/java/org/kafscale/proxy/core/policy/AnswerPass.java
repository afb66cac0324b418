package org.kafscale.proxy.core.policy;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.List;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;

/**
 * One answer on its way back through the answer readers of the stages its request passed, last
 * stage first. The answer is parsed once for all of them; it is written as the broker's own bytes
 * unless one replaced it, and then encoded once, its record sets slices of the broker's frame.
 * An answer that is not one to read (none, a close) only tells each reader so.
 */
final class AnswerPass {
    private final PolicyContext context;
    private final List<Stage> readers;
    private final Stages chain;
    private final Promise<Reply> out;
    private ByteBuf frame;
    private ApiMessage answer;
    private boolean replaced;

    /** @param readers the stages that read the answer, in chain order */
    AnswerPass(PolicyContext context, List<Stage> readers, Stages chain, Promise<Reply> out) {
        this.context = context;
        this.readers = readers;
        this.chain = chain;
        this.out = out;
    }

    /** Reads {@code reply} through every reader; completes the pass's promise. Call on the loop. */
    void read(Reply reply) {
        if (!(reply instanceof Reply.Send send)) {
            for (int i = readers.size() - 1; i >= 0; i--) {
                readers.get(i).answer().unanswered(context);
            }
            Replies.settle(out, reply);
            return;
        }
        frame = send.frame();
        context.answerRead(frame.readableBytes());
        try {
            answer = ResponseFrames.decode(context.api(), context.apiVersion(), frame);
            chain.answerDecoded();
        } catch (RuntimeException e) {
            close("reading the answer to " + context.describeRequest() + " for its policies failed: " + e);
            return;
        }
        step(readers.size() - 1);
    }

    /** Runs reader {@code at} and those before it. */
    private void step(int at) {
        for (int i = at; i >= 0; i--) {
            Future<AnswerOutcome> decided;
            try {
                decided = readers.get(i).answer().onAnswer(answer, context);
                if (decided == null) {
                    throw new IllegalStateException("it returned no outcome");
                }
            } catch (RuntimeException e) {
                failed(i, e);
                return;
            }
            if (!decided.isDone() || !context.loop().inEventLoop()) {
                int reader = i;
                decided.addListener(done -> {
                    if (context.loop().inEventLoop()) {
                        resume(reader, decided);
                    } else {
                        context.loop().execute(() -> resume(reader, decided));
                    }
                });
                return;
            }
            if (!decide(i, decided)) {
                return;
            }
        }
        finish();
    }

    private void resume(int reader, Future<AnswerOutcome> decided) {
        if (decide(reader, decided)) {
            step(reader - 1);
        }
    }

    /** True when the answer goes on to the next reader; false when the pass ended here. */
    private boolean decide(int reader, Future<AnswerOutcome> decided) {
        if (!decided.isSuccess()) {
            failed(reader, decided.cause());
            return false;
        }
        AnswerOutcome outcome = decided.getNow();
        if (outcome instanceof AnswerOutcome.Replace replace) {
            answer = replace.answer();
            replaced = true;
            return true;
        }
        if (outcome instanceof AnswerOutcome.Close close) {
            close(close.reason());
            return false;
        }
        if (outcome instanceof AnswerOutcome.Keep) {
            return true;
        }
        failed(reader, new IllegalStateException("it decided no outcome"));
        return false;
    }

    private void finish() {
        if (!replaced) {
            Replies.settle(out, Reply.send(frame));
            return;
        }
        Reply reply;
        try {
            reply = Reply.send(ResponseFrames.encode(context.api(), context.apiVersion(), context.correlationId(),
                    answer, List.of(frame)));
        } catch (RuntimeException e) {
            reply = new Reply.Close("encoding the answer policies replaced for " + context.describeRequest()
                    + " failed: " + e);
        } finally {
            frame.release();
        }
        Replies.settle(out, reply);
    }

    private void failed(int reader, Throwable cause) {
        close("answer policy " + readers.get(reader).name() + " failed on the answer to "
                + context.describeRequest() + " for " + context.describeClient() + ": " + cause);
    }

    private void close(String reason) {
        frame.release();
        Replies.settle(out, new Reply.Close(reason));
    }
}
