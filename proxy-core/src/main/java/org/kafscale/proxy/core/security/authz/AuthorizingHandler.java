package org.kafscale.proxy.core.security.authz;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestFrames;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.topology.Topology;
import org.slf4j.LoggerFactory;

/**
 * Authorization in front of the dispatcher: each request is checked against the ACL rules for the
 * connection's principal ({@link ConnectionContext#principal()}) before anything is answered or
 * routed. What is allowed goes on unchanged; what is refused is answered here with Kafka's own
 * error for the resource; a request partly allowed goes on narrowed to what is allowed, and the
 * refused parts are added to its answer (which the routes merged as usual). Listings (Metadata,
 * ListGroups, ListTransactions, ...) go on and their answers lose what the principal may not see.
 *
 * <p>The proxy's own connections ({@link OwnConnections}: the readiness probe, which must read
 * whatever topic it proves) and the APIs Kafka checks no ACL for (ApiVersions, SASL, DescribeCluster)
 * are not checked. Runs on the connection's event loop; the rules are read once per request, so a reload
 * never changes a decision half-way.
 */
public final class AuthorizingHandler implements RequestHandler {
    private static final RateLimitedLog REFUSALS = RateLimitedLog.every10Seconds(
            LoggerFactory.getLogger(AuthorizingHandler.class));

    private final AclAuthorizer authorizer;
    private final Topology topology;
    private final AuthorizationObserver observer;
    private final OwnConnections own;
    private final RequestHandler next;

    /**
     * @param own the proxy's own connections (its readiness probe), which are not checked
     * @param next what handles an allowed request (the dispatcher)
     */
    public AuthorizingHandler(AclAuthorizer authorizer, Topology topology, AuthorizationObserver observer,
                              OwnConnections own, RequestHandler next) {
        this.authorizer = authorizer;
        this.topology = topology;
        this.observer = observer;
        this.own = own;
        this.next = next;
    }

    @Override
    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        Optional<ApiKeys> known = request.knownApi();
        if (known.isEmpty() || ApiGuards.UNCHECKED.contains(known.get()) || !ApiCatalog.served(known.get())
                || own.isOwn(context.clientAddress())) {
            // Unknown and unserved keys are refused by the dispatcher, whoever asks.
            return next.handle(context, request);
        }
        ApiKeys api = known.get();
        Access access = new Access(context.principal(), authorizer.rules(), topology.snapshot());
        Verdict verdict;
        try {
            verdict = ApiGuards.check(api, request.decodeBody(ApiMessage.class), request.apiVersion(), access);
        } catch (RuntimeException e) {
            return Replies.now(context.loop(), new Reply.Close("authorizing " + request.describe() + " failed: " + e));
        }
        if (!(verdict instanceof Verdict.Edit)) {
            report(context, request, api, access);
        }
        if (verdict instanceof Verdict.Refuse refuse) {
            return Replies.now(context.loop(), Replies.error(request, refuse.error()));
        }
        if (verdict instanceof Verdict.Answer answer) {
            return Replies.now(context.loop(), encode(request, answer.answer()));
        }
        if (verdict instanceof Verdict.Close close) {
            return Replies.now(context.loop(), new Reply.Close(close.reason() + " for " + context.principal()
                    + " (" + request.describe() + ")"));
        }
        if (verdict instanceof Verdict.Edit edit) {
            return edited(context, request, api, access, edit);
        }
        return next.handle(context, request);
    }

    /** Sends the narrowed request (or the client's) on and edits its answer on the way back. */
    private Future<Reply> edited(ConnectionContext context, RequestFrame request, ApiKeys api, Access access,
                                 Verdict.Edit edit) {
        RequestFrame sent;
        try {
            sent = edit.narrowed() == null ? request : RequestFrames.withBody(request, edit.narrowed());
        } catch (RuntimeException e) {
            return Replies.now(context.loop(), new Reply.Close("narrowing " + request.describe() + " failed: " + e));
        }
        Future<Reply> answer;
        try {
            answer = next.handle(context, sent);
        } catch (RuntimeException e) {
            release(request, sent);
            throw e;
        }
        Promise<Reply> reply = context.newReply();
        answer.addListener(done -> {
            release(request, sent);
            Reply result = done.isSuccess() ? (Reply) done.getNow()
                    : new Reply.Close("handling " + request.describe() + " failed: " + done.cause());
            Reply out = result instanceof Reply.Send send ? editAnswer(request, api, send.frame(), edit.edit()) : result;
            report(context, request, api, access);
            Replies.settle(reply, out);
        });
        return reply;
    }

    /** The answer frame decoded, edited and encoded again (record sets stay slices of it). */
    private static Reply editAnswer(RequestFrame request, ApiKeys api, ByteBuf frame, Consumer<ApiMessage> edit) {
        try {
            ApiMessage answer = ResponseFrames.decode(api, request.apiVersion(), frame);
            edit.accept(answer);
            return Reply.send(ResponseFrames.encode(api, request.apiVersion(), request.correlationId(), answer,
                    List.of(frame)));
        } catch (RuntimeException e) {
            return new Reply.Close("editing the answer to " + request.describe() + " for authorization failed: " + e);
        } finally {
            frame.release();
        }
    }

    private static Reply encode(RequestFrame request, ApiMessage answer) {
        try {
            return Reply.send(ResponseFrames.encode(request, answer));
        } catch (RuntimeException e) {
            return new Reply.Close("answering " + request.describe() + " failed: " + e);
        }
    }

    private static void release(RequestFrame request, RequestFrame sent) {
        if (sent != request) {
            sent.frame().release();
        }
    }

    private void report(ConnectionContext context, RequestFrame request, ApiKeys api, Access access) {
        if (access.refused().isEmpty()) {
            return;
        }
        access.refused().forEach(type -> observer.refused(api, type));
        REFUSALS.info("Refused {} for {} from {} (client id '{}'): not allowed on {}", request.describe(),
                context.principal(), context.clientAddress(), request.clientId(), access.refused());
    }
}
