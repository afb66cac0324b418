package org.kafscale.proxy.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.kafscale.proxy.app.authz.AclFileWatcher;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.lfs.LfsRuntime;
import org.kafscale.proxy.app.metrics.ProxyMetrics;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.ApiVersionsResponder;
import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.local.DescribeClusterResponder;
import org.kafscale.proxy.core.local.DescribeTopicPartitionsResponder;
import org.kafscale.proxy.core.local.FindCoordinatorResponder;
import org.kafscale.proxy.core.local.MetadataResponder;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.policy.PolicyFactory;
import org.kafscale.proxy.core.quota.QuotaPolicy;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.authz.AuthorizationPolicy;
import org.kafscale.proxy.core.security.sasl.SaslAuthenticator;
import org.kafscale.proxy.core.server.RequestDispatcher;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.core.tenant.TenantPolicy;
import org.kafscale.proxy.core.validation.ValidationPolicy;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.routing.Routing;
import org.kafscale.proxy.routing.apis.Apis;

/**
 * The Kafka path every client connection gets, outermost first: SASL (when configured), then the
 * policy chain (virtual clusters, their quotas, authorization with ACLs, then record validation),
 * then the dispatcher, which answers ApiVersions, Metadata and the other local APIs itself and
 * routes the rest.
 *
 * @param config the proxy's settings
 * @param topology where brokers, partitions and coordinators are learnt
 * @param advertised the address clients are told to use for every broker
 * @param brokerVersions the API versions the brokers support, kept fresh by the probe
 * @param metrics the proxy's meters
 * @param lfs the LFS runtime, when LFS is on: Produce is rewritten through it
 * @param sasl SASL on the listener, when configured
 * @param acls the ACL file, when configured
 * @param own the connections the proxy opens to itself, which authorization lets through
 */
record KafkaPathAssembly(ProxyConfig config, TopologySource topology, AdvertisedListener advertised,
                         BrokerApiVersions brokerVersions, ProxyMetrics metrics, Optional<LfsRuntime> lfs,
                         Optional<SaslAuthenticator> sasl, Optional<AclFileWatcher> acls, OwnConnections own) {

    /** The handlers for each new connection, SASL outermost. */
    RequestHandlers handlers() {
        // Where each key is served and how it is checked, from its one entry in Apis: one catalog for
        // the dispatcher, ApiVersions and the authorizer.
        ApiCatalog apis = Apis.catalog();
        RequestHandlers dispatchers = dispatchers(apis);
        // The policy chain reads every request before the dispatcher answers or routes it, and every
        // answer before it is written. With SASL, every connection (bootstrap and broker ports)
        // authenticates before the chain sees a request.
        RequestHandlers chained = new PolicyChain(policies(apis)).around(dispatchers);
        return sasl.map(s -> s.guard(chained)).orElse(chained);
    }

    private RequestHandlers dispatchers(ApiCatalog apis) {
        ApiVersionsResponder apiVersions = new ApiVersionsResponder(apis, brokerVersions,
                sasl.isPresent() ? SaslAuthenticator.advertisedApis() : List.of());
        MetadataResponder metadata = new MetadataResponder(topology, advertised);
        FindCoordinatorResponder findCoordinator = new FindCoordinatorResponder(topology, advertised);
        DescribeClusterResponder describeCluster = new DescribeClusterResponder(topology, advertised);
        DescribeTopicPartitionsResponder describeTopicPartitions = new DescribeTopicPartitionsResponder(topology,
                advertised);
        Routing routing = new Routing(topology, advertised, config.requestTimeout().toMillis(),
                config.anyBrokerConnect(), metrics, lfs.map(LfsRuntime::produceRewriter).orElse(ProduceRewriter.NONE),
                config.fetchReadAhead());
        // Each connection gets its own router (for what it keeps per connection) behind the shared answers.
        return connection -> new RequestDispatcher(apis, apiVersions, metadata, findCoordinator, describeCluster,
                describeTopicPartitions, topology.gate(), routing.newRouter(connection));
    }

    /**
     * The chain's policies in the order they run: virtual clusters first, so every later policy
     * (authorization with ACLs in the real cluster's names) sees real names; then their quotas, so
     * a client's refused requests count against its rates too; then authorization, so no later
     * policy sees a refused request; then record validation, which decodes only what may be written.
     */
    private List<PolicyFactory> policies(ApiCatalog apis) {
        List<PolicyFactory> policies = new ArrayList<>();
        if (!config.virtualClusters().isEmpty()) {
            policies.add(PolicyFactory.shared(new TenantPolicy(apis, config.virtualClusters(), topology, own)));
            QuotaPolicy quotas = new QuotaPolicy(config.virtualClusters(), config.gateway().quotas(), metrics,
                    System::nanoTime);
            if (quotas.holdsAny()) {
                policies.add(PolicyFactory.shared(quotas));
            }
        }
        acls.ifPresent(watcher -> policies.add(PolicyFactory.shared(new AuthorizationPolicy(apis,
                watcher.authorizer(), topology, metrics, own))));
        if (!config.gateway().validation().isEmpty()) {
            policies.add(PolicyFactory.shared(new ValidationPolicy(config.gateway().validation(), topology,
                    metrics)));
        }
        return policies;
    }
}
