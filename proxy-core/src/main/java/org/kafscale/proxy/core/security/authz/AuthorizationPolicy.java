package org.kafscale.proxy.core.security.authz;

import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.PolicyConnection;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.policy.RequestPolicy;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authorization: each request is checked against the ACL rules for the connection's principal
 * ({@link PolicyConnection#principal()}, whose rules {@link AclsInForce} gives) before anything is
 * answered or routed; a principal no ACL file applies to is not checked. What is allowed goes on unchanged; what is refused is answered here with Kafka's own
 * error for the resource; a request partly allowed goes on narrowed to what is allowed, and the
 * refused parts are added to its answer (which the routes merged as usual). Listings (Metadata,
 * ListGroups, ListTransactions, ...) go on and their answers lose what the principal may not see.
 *
 * <p>The proxy's own connections ({@link OwnConnections}: the readiness probe, which must read
 * whatever topic it proves) and the APIs Kafka checks no ACL for (ApiVersions, SASL, DescribeCluster)
 * are not checked; nor are keys the proxy does not serve, which the dispatcher refuses whoever asks.
 * Each key's check is its {@link Guard}, as the API registry holds it ({@link ServedGuards}).
 * The rules are read once per request, so a reload never changes a decision half-way.
 */
public final class AuthorizationPolicy implements RequestPolicy {
    private static final Logger LOGGER = LoggerFactory.getLogger(AuthorizationPolicy.class);

    /**
     * This instance's refusal lines, at most one per interval: the limiter is the instance's, not
     * the process's, so a policy made per connection (or a test's) is limited on its own.
     */
    private final RateLimitedLog refusals = RateLimitedLog.every10Seconds(LOGGER);

    private final ServedGuards apis;
    private final AclsInForce acls;
    private final Topology topology;
    private final AuthorizationObserver observer;
    private final OwnConnections own;

    /**
     * @param apis the guard of each served key, which checks its requests
     * @param own the proxy's own connections (its readiness probe), which are not checked
     */
    public AuthorizationPolicy(ServedGuards apis, AclsInForce acls, Topology topology,
                               AuthorizationObserver observer, OwnConnections own) {
        this.apis = apis;
        this.acls = acls;
        this.topology = topology;
        this.observer = observer;
        this.own = own;
    }

    @Override
    public boolean readsRequests(ApiKeys api) {
        return apis.guardOf(api).filter(Guard::checks).isPresent();
    }

    @Override
    public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
        // The socket's address: a forged PROXY protocol header must not pass for the proxy's own probe.
        if (own.isOwn(context.connection().peerAddress())) {
            return context.forward();
        }
        KafkaPrincipal principal = context.connection().principal();
        Optional<AclRules> rules = acls.rulesFor(principal, context.connection().virtualCluster());
        if (rules.isEmpty()) {
            return context.forward();
        }
        ApiKeys api = context.api();
        Access access = new Access(principal, hostOf(context.connection().clientAddress()), rules.get(),
                topology.snapshot());
        Verdict verdict;
        try {
            verdict = guardOf(apis, api).check(body, context.apiVersion(), access);
        } catch (RuntimeException e) {
            return context.now(context.close("authorizing " + context.describeRequest() + " failed: " + e));
        }
        if (verdict instanceof Verdict.Edit edit) {
            // Refusals found while editing the answer are reported with the rest, once it is edited.
            return context.now(RequestOutcome.forward(edit.narrowed(), new AnswerEdit(access, edit.edit())));
        }
        report(context, access);
        if (verdict instanceof Verdict.Refuse refuse) {
            return context.now(context.error(refuse.error()));
        }
        if (verdict instanceof Verdict.Answer answer) {
            return context.now(context.answer(answer.answer()));
        }
        if (verdict instanceof Verdict.Close close) {
            return context.now(context.close(close.reason() + " for " + context.connection().principal() + " ("
                    + context.describeRequest() + ")"));
        }
        return context.forward();
    }

    /** The client's address that rules with a host are compared to; null when it is not an IP address. */
    private static InetAddress hostOf(SocketAddress client) {
        return client instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** The guard of {@code api}; a key not served (never read: see {@link #readsRequests}) is refused whole. */
    static Guard guardOf(ServedGuards apis, ApiKeys api) {
        return apis.guardOf(api).orElse(Guard.refusedWhole());
    }

    /** One request's answer, edited to what its principal may see, and the request's refusals reported. */
    private final class AnswerEdit implements AnswerPolicy {
        private final Access access;
        private final Consumer<ApiMessage> edit;

        AnswerEdit(Access access, Consumer<ApiMessage> edit) {
            this.access = access;
            this.edit = edit;
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            edit.accept(answer);
            report(context, access);
            return context.now(AnswerOutcome.replace(answer));
        }

        @Override
        public void unanswered(PolicyContext context) {
            report(context, access);
        }
    }

    private void report(PolicyContext context, Access access) {
        if (access.refused().isEmpty()) {
            return;
        }
        access.refused().forEach(type -> observer.refused(context.api(), type));
        PolicyConnection connection = context.connection();
        observer.denied(connection, context.api(), access.denials());
        refusals.info(connection, "Refused {} for {} from {} (client id '{}'): not allowed on {}",
                context.describeRequest(), connection.principal(), connection.clientAddress(), context.clientId(),
                access.refused());
    }
}
