package org.kafscale.proxy.core.policy;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;

/**
 * What a policy sees of one request and its connection, and how it builds its outcomes. Made
 * once per request that a policy reads; valid until that request is answered, on the
 * connection's event loop.
 *
 * <p>The connection's broker channels are not here: a policy decides, the routes forward.
 */
public final class PolicyContext {
    private final ConnectionContext connection;
    private final RequestFrame request;
    private final ApiKeys api;
    /** The connection as policies see it, made when one asks. */
    private PolicyConnection view;
    /** The size of the answer the answer policies read; -1 until there is one. */
    private int answerBytes = -1;

    PolicyContext(ConnectionContext connection, RequestFrame request, ApiKeys api) {
        this.connection = connection;
        this.request = request;
        this.api = api;
    }

    public ApiKeys api() {
        return api;
    }

    public short apiVersion() {
        return request.apiVersion();
    }

    public int correlationId() {
        return request.correlationId();
    }

    /** The size of the request as the client sent it: header and body, without the length prefix. */
    public int requestBytes() {
        return request.frame().readableBytes();
    }

    /**
     * The size of the answer as it came to the proxy (header and body, without the length
     * prefix), for answer policies; -1 in a request policy.
     */
    public int answerBytes() {
        return answerBytes;
    }

    void answerRead(int bytes) {
        answerBytes = bytes;
    }

    /** The client id from the request header (null when the client sent none). */
    public String clientId() {
        return request.clientId();
    }

    /**
     * The connection the request came on: its id, client address, principal, addressed broker and
     * log fields (a policy's log lines carry them, so an operator finds its decisions next to the
     * rest of the connection's).
     */
    public PolicyConnection connection() {
        if (view == null) {
            view = new PolicyConnection(connection);
        }
        return view;
    }

    // In the next issues the connection's virtual cluster is added to PolicyConnection, read from
    // the ConnectionContext as the rest is.

    /** The client for log lines: its address, and its principal once it has authenticated. */
    public String describeClient() {
        return connection.describeClient();
    }

    /** The request for log lines: API, version and correlation id. */
    public String describeRequest() {
        return request.describe();
    }

    /** The connection's event loop, where every hook is called and should complete. */
    public EventLoop loop() {
        return connection.loop();
    }

    /** A request outcome to complete later (from any thread: the chain goes on on the loop). */
    public Promise<RequestOutcome> newOutcome() {
        return connection.loop().newPromise();
    }

    /** An answer outcome to complete later (from any thread: the chain goes on on the loop). */
    public Promise<AnswerOutcome> newAnswerOutcome() {
        return connection.loop().newPromise();
    }

    /** An outcome decided now. */
    public Future<RequestOutcome> now(RequestOutcome outcome) {
        return connection.loop().newSucceededFuture(outcome);
    }

    /** An answer outcome decided now. */
    public Future<AnswerOutcome> now(AnswerOutcome outcome) {
        return connection.loop().newSucceededFuture(outcome);
    }

    /** The request goes on as it is, decided now. */
    public Future<RequestOutcome> forward() {
        return now(RequestOutcome.FORWARD);
    }

    /** The answer goes on as it is, decided now. */
    public Future<AnswerOutcome> keep() {
        return now(AnswerOutcome.KEEP);
    }

    /** The policy answers the request with {@code answer}, encoded at the request's version. */
    public RequestOutcome answer(ApiMessage answer) {
        try {
            return RequestOutcome.respond(Reply.send(ResponseFrames.encode(request, answer)));
        } catch (RuntimeException e) {
            return close("answering " + request.describe() + " failed: " + e);
        }
    }

    /** The policy answers the request with Kafka's error answer for all of it (its {@code getErrorResponse}). */
    public RequestOutcome error(Errors error) {
        return RequestOutcome.respond(Replies.error(request, error));
    }

    /**
     * As {@link #error(Errors)}, with {@code message} as the answer's error message: one the client
     * may read, so it must name nothing the client may not see.
     */
    public RequestOutcome error(Errors error, String message) {
        try {
            return RequestOutcome.respond(Reply.send(ResponseFrames.errorResponse(request, error, message)));
        } catch (RuntimeException e) {
            return close("cannot answer " + request.describe() + " with " + error.name() + ": " + e);
        }
    }

    /** The connection closes without an answer, logging {@code reason}. */
    public RequestOutcome close(String reason) {
        return RequestOutcome.respond(new Reply.Close(reason));
    }
}
