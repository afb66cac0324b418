package org.kafscale.proxy.core.policy;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;

/**
 * One request on its way through the chain's stages for its API, then to the next handler; its
 * answer then goes back through the answer policies of the stages it passed ({@link AnswerPass}).
 *
 * <p>Runs on the connection's event loop: a stage that decides later is followed from its
 * future's listener, moved onto the loop. While every stage decides at once, nothing is wrapped:
 * the next handler's own future is returned when no stage reads the answer. A replaced body is
 * encoded once, into a frame of its own, when the request leaves the chain; that frame is
 * released when the next handler's answer is ready (the client's frame stays the caller's).
 */
final class RequestPass {
    private final ConnectionContext connection;
    private final RequestFrame request;
    private final ApiKeys api;
    private final Stage[] stages;
    private final Stages chain;
    private final RequestHandler next;
    private final PolicyContext context;
    private ApiMessage body;
    private boolean replaced;
    /** The stages passed that read the answer, in chain order (read back to front); null for none yet. */
    private List<Stage> readers;

    /** @param stages {@code api}'s stages of {@code chain} */
    RequestPass(ConnectionContext connection, RequestFrame request, ApiKeys api, Stage[] stages, Stages chain,
                RequestHandler next) {
        this.connection = connection;
        this.request = request;
        this.api = api;
        this.stages = stages;
        this.chain = chain;
        this.next = next;
        this.context = new PolicyContext(connection, request, api);
    }

    Future<Reply> start() {
        return walk(0);
    }

    /** Runs the stages from {@code from} on; the reply to the client, or its future. */
    private Future<Reply> walk(int from) {
        for (int i = from; i < stages.length; i++) {
            Stage stage = stages[i];
            if (stage.request() == null) {
                addReader(stage);
                continue;
            }
            Future<RequestOutcome> decided;
            try {
                if (body == null) {
                    body = request.decodeBody(ApiMessage.class);
                }
                decided = stage.request().onRequest(body, context);
                if (decided == null) {
                    throw new IllegalStateException("it returned no outcome");
                }
            } catch (RuntimeException e) {
                return answered(close(stage, e));
            }
            if (!decided.isDone() || !connection.loop().inEventLoop()) {
                return later(i, decided);
            }
            return decide(i, decided);
        }
        return forward();
    }

    /**
     * Stage {@code at} decides later: the chain goes on from its listener, on the loop, as part of
     * the request's handling, so a hold the route names then still moves the request's deadline.
     */
    private Future<Reply> later(int at, Future<RequestOutcome> decided) {
        Promise<Reply> reply = connection.newReply();
        ConnectionContext.Handling handling = connection.handling();
        decided.addListener(done -> onLoop(() -> follow(handling.resume(() -> rest(at, decided)), reply)));
        return reply;
    }

    /** The chain from stage {@code at}, whose decision came later, on. */
    private Future<Reply> rest(int at, Future<RequestOutcome> decided) {
        try {
            return decide(at, decided);
        } catch (RuntimeException e) {
            // Thrown past the policies (they are caught as theirs): by the handler after them.
            return answered(close("handling " + request.describe() + " failed: " + e));
        }
    }

    /** What stage {@code at} decided (its future is done): the chain stops there or goes on. */
    private Future<Reply> decide(int at, Future<RequestOutcome> decided) {
        Stage stage = stages[at];
        if (!decided.isSuccess()) {
            return answered(close(stage, decided.cause()));
        }
        RequestOutcome outcome = decided.getNow();
        if (outcome instanceof RequestOutcome.Respond respond) {
            return answered(connection.loop().newSucceededFuture(respond.reply()));
        }
        if (!(outcome instanceof RequestOutcome.Forward forward)) {
            return answered(close(stage, new IllegalStateException("it decided no outcome")));
        }
        if (forward.replaced() != null) {
            body = forward.replaced();
            replaced = true;
        }
        addReader(stage);
        if (forward.answer() != null) {
            addReader(new Stage(stage.name(), null, forward.answer()));
        }
        return walk(at + 1);
    }

    /** Past the last stage: the request (re-encoded when a stage replaced its body) goes to the next handler. */
    private Future<Reply> forward() {
        RequestFrame sent = request;
        if (replaced) {
            try {
                sent = RequestFrames.withBody(request, body);
            } catch (RuntimeException e) {
                return answered(close("encoding the body policies replaced in " + request.describe() + " failed: " + e));
            }
        }
        Future<Reply> reply;
        try {
            reply = next.handle(connection, sent);
        } catch (RuntimeException e) {
            release(sent);
            throw e;
        }
        if (reply == null) {
            release(sent);
            return answered(close("handling " + request.describe() + " gave no future"));
        }
        if (sent != request) {
            RequestFrame own = sent;
            reply.addListener(done -> own.frame().release());
        }
        return answered(reply);
    }

    /** {@code reply} after the answer readers of the stages passed; {@code reply} itself when there are none. */
    private Future<Reply> answered(Future<Reply> reply) {
        if (readers == null) {
            return reply;
        }
        Promise<Reply> out = connection.newReply();
        AnswerPass pass = new AnswerPass(context, readers, chain, out);
        reply.addListener(done -> onLoop(() -> pass.read(done.isSuccess() ? (Reply) done.getNow()
                : new Reply.Close("handling " + request.describe() + " failed: " + done.cause()))));
        return out;
    }

    private Future<Reply> close(String reason) {
        return connection.loop().newSucceededFuture(new Reply.Close(reason));
    }

    private Future<Reply> close(Stage stage, Throwable cause) {
        return close("policy " + stage.name() + " failed on " + request.describe() + " from "
                + connection.describeClient() + ": " + cause);
    }

    /** {@code stage} reads the answer, if it has an answer hook. */
    private void addReader(Stage stage) {
        if (stage.answer() == null) {
            return;
        }
        if (readers == null) {
            readers = new ArrayList<>(2);
        }
        readers.add(stage);
    }

    private void release(RequestFrame sent) {
        if (sent != request) {
            sent.frame().release();
        }
    }

    private void onLoop(Runnable step) {
        if (connection.loop().inEventLoop()) {
            step.run();
        } else {
            connection.loop().execute(step);
        }
    }

    /** Completes {@code reply} with what {@code rest} completes with (a failure closes). */
    private void follow(Future<Reply> rest, Promise<Reply> reply) {
        rest.addListener(done -> Replies.settle(reply, done.isSuccess() ? (Reply) done.getNow()
                : new Reply.Close("handling " + request.describe() + " failed: " + done.cause())));
    }
}
