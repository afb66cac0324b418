package org.kafscale.proxy.core.tenant;

import io.netty.util.concurrent.Future;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.AnswerPolicy;
import org.kafscale.proxy.core.policy.PolicyConnection;
import org.kafscale.proxy.core.policy.PolicyContext;
import org.kafscale.proxy.core.policy.RequestOutcome;
import org.kafscale.proxy.core.policy.RequestPolicy;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Virtual clusters: each connection is placed in a virtual cluster once ({@link TenantPlacement}:
 * by the principal it authenticated as, or by the virtual cluster's own listener it came in on),
 * and each of its requests is kept within it by its API's {@link Isolation}.
 * The request's names (topics, groups, transactional ids, topic ids) become the real cluster's,
 * its answer's become the client's again, and what belongs to no one of the tenant's is left out,
 * so a tenant sees its own Kafka and nothing of the others'. An API that cannot be kept within a
 * tenant is neither advertised nor served to one. Runs before authorization, so ACLs are written
 * in the real cluster's names.
 *
 * <p>A principal in no virtual cluster is closed at its first request after ApiVersions: when
 * virtual clusters are configured, every client is in one. The proxy's own connections (its
 * readiness probe) are not placed.
 */
public final class TenantPolicy implements RequestPolicy {
    private static final Logger LOGGER = LoggerFactory.getLogger(TenantPolicy.class);

    private final IsolatedApis apis;
    private final VirtualClusters clusters;
    private final TenantPlacement placement;
    private final Topology topology;
    private final OwnConnections own;
    /** Each virtual cluster's quotas by name, which DescribeClientQuotas answers with. */
    private final Map<String, TenantQuotas> quotas;
    /** ApiVersions loses the keys no virtual cluster is served: the same answer for every tenant. */
    private final AnswerPolicy servedVersions = new ServedVersions();

    /** The tenant policy of the proxy's shared listener, where a principal says which virtual cluster. */
    public TenantPolicy(IsolatedApis apis, VirtualClusters clusters, Topology topology, OwnConnections own) {
        this(apis, clusters, new TenantPlacement(clusters, Optional.empty()), topology, own);
    }

    /** @param placement how this listener's connections are placed */
    public TenantPolicy(IsolatedApis apis, VirtualClusters clusters, TenantPlacement placement, Topology topology,
                        OwnConnections own) {
        this(apis, clusters, placement, topology, own, Map.of());
    }

    /** @param quotas each virtual cluster's quotas by name (none for a name not in it) */
    public TenantPolicy(IsolatedApis apis, VirtualClusters clusters, TenantPlacement placement, Topology topology,
                        OwnConnections own, Map<String, TenantQuotas> quotas) {
        this.quotas = Map.copyOf(quotas);
        if (clusters.isEmpty()) {
            throw new IllegalArgumentException("a tenant policy needs virtual clusters");
        }
        this.apis = apis;
        this.clusters = clusters;
        this.placement = placement;
        this.topology = topology;
        this.own = own;
    }

    @Override
    public Future<RequestOutcome> onRequest(ApiMessage body, PolicyContext context) {
        // The socket's address: a forged PROXY protocol header must not pass for the proxy's own probe.
        if (own.isOwn(context.connection().peerAddress())) {
            return context.forward();
        }
        ApiKeys api = context.api();
        if (api == ApiKeys.API_VERSIONS) {
            // Before SASL authentication too: which keys a tenant gets does not depend on which tenant.
            return context.now(RequestOutcome.forward(null, servedVersions));
        }
        PolicyConnection connection = context.connection();
        VirtualCluster cluster = connection.virtualCluster().flatMap(clusters::named).orElse(null);
        if (cluster == null) {
            TenantPlacement.Placed placed = placement.place(connection.principal());
            if (placed.cluster() == null) {
                return context.now(context.close(placed.refusal() + " (" + context.describeRequest() + ")"));
            }
            cluster = placed.cluster();
            connection.placeIn(cluster.name());
        }
        Isolation isolation = apis.isolationOf(api);
        if (isolation.refuses()) {
            return context.now(context.close(api.name + " is not served to virtual cluster '" + cluster.name() + "': "
                    + isolation.doc()));
        }
        if (!isolation.rewrites() && !isolation.answersHere()) {
            return context.forward();
        }
        TenantScope scope = new TenantScope(cluster, topology.snapshot(),
                quotas.getOrDefault(cluster.name(), TenantQuotas.NONE));
        try {
            if (isolation.answersHere()) {
                return context.now(context.answer(isolation.answerHere(body, scope)));
            }
            isolation.rewriteRequest(body, scope);
        } catch (TenantRefusal refusal) {
            LOGGER.atDebug().log("Refused {} for virtual cluster '{}': {}", context.describeRequest(), cluster.name(),
                    refusal.getMessage());
            return context.now(context.error(refusal.error(), refusal.getMessage()));
        } catch (RuntimeException e) {
            return context.now(context.close("rewriting " + context.describeRequest() + " for virtual cluster '"
                    + cluster.name() + "' failed: " + e));
        }
        return context.now(RequestOutcome.forward(body,
                isolation.rewritesAnswerTo(body, context.apiVersion(), scope) ? new AnswerRewrite(isolation, scope) : null));
    }

    /** One request's answer, in its tenant's names. */
    private static final class AnswerRewrite implements AnswerPolicy {
        private final Isolation isolation;
        private final TenantScope scope;

        AnswerRewrite(Isolation isolation, TenantScope scope) {
            this.isolation = isolation;
            this.scope = scope;
        }

        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            try {
                isolation.rewriteAnswer(answer, scope);
            } catch (RuntimeException e) {
                return context.now(AnswerOutcome.close("rewriting the answer to " + context.describeRequest()
                        + " for virtual cluster '" + scope.cluster().name() + "' failed: " + e));
            }
            return context.now(AnswerOutcome.replace(answer));
        }
    }

    /**
     * Whether ApiVersions leaves {@code key} out. SASL is the listener's gate's, answered before any
     * tenant is known (the registry refuses it as a forwarded key): it stays.
     */
    private boolean hidden(short key) {
        if (!ApiKeys.hasId(key)) {
            return false;
        }
        ApiKeys api = ApiKeys.forId(key);
        return api != ApiKeys.SASL_HANDSHAKE && api != ApiKeys.SASL_AUTHENTICATE && apis.isolationOf(api).refuses();
    }

    private final class ServedVersions implements AnswerPolicy {
        @Override
        public Future<AnswerOutcome> onAnswer(ApiMessage answer, PolicyContext context) {
            ApiVersionsResponseData versions = (ApiVersionsResponseData) answer;
            versions.apiKeys().removeIf(key -> hidden(key.apiKey()));
            return context.now(AnswerOutcome.replace(versions));
        }
    }
}
