package org.kafscale.proxy.app;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.app.audit.AuditRuntime;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.lfs.LfsRuntime;
import org.kafscale.proxy.app.metrics.ProxyMetrics;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.encryption.EncryptionPolicy;
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
import org.kafscale.proxy.core.security.authz.AclsInForce;
import org.kafscale.proxy.core.security.authz.AuthorizationObserver;
import org.kafscale.proxy.core.security.authz.AuthorizationPolicy;
import org.kafscale.proxy.core.security.sasl.SaslAuthenticator;
import org.kafscale.proxy.core.server.RequestDispatcher;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.core.tenant.TenantPlacement;
import org.kafscale.proxy.core.tenant.TenantPolicy;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.validation.ValidationPolicy;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.routing.Routing;
import org.kafscale.proxy.routing.apis.Apis;

/**
 * The Kafka path every client connection gets, outermost first: SASL (when configured), then the
 * policy chain (virtual clusters, their quotas, the audit trail, authorization with ACLs, then
 * record validation), then the dispatcher, which answers ApiVersions, Metadata and the other local
 * APIs itself and routes the rest.
 *
 * @param config the proxy's settings
 * @param topology where brokers, partitions and coordinators are learnt
 * @param advertised the address the shared listener's clients are told to use for every broker
 * @param brokerVersions the API versions the brokers support, kept fresh by the probe
 * @param metrics the proxy's meters
 * @param lfs the LFS runtime, when LFS is on: Produce is rewritten through it
 * @param sasl SASL on the listener, when configured
 * @param tenantSasl SASL on the own listener of each virtual cluster with a credentials file of its
 *     own, by its name; the others' listeners take {@code sasl}
 * @param acls whose ACL rules decide whose requests, when any ACL file (the proxy's or a virtual
 *     cluster's) is configured
 * @param own the connections the proxy opens to itself, which authorization lets through
 * @param audit the audit trail, when the gateway file configures one
 * @param previousQuotas after a live reconfiguration, the quota policy of the paths it replaces,
 *     whose meters the unchanged virtual clusters keep
 */
record KafkaPathAssembly(ProxyConfig config, TopologySource topology, AdvertisedListener advertised,
                         BrokerApiVersions brokerVersions, ProxyMetrics metrics, Optional<LfsRuntime> lfs,
                         Optional<SaslAuthenticator> sasl, Map<String, SaslAuthenticator> tenantSasl,
                         Optional<AclsInForce> acls, OwnConnections own, Optional<AuditRuntime> audit,
                         Optional<QuotaPolicy> previousQuotas) {

    /**
     * The handlers for each new connection, SASL outermost: of the shared listener, and of each
     * virtual cluster's own listener. The policies after the tenant policy (quotas, authorization)
     * are one instance for all of them, so a tenant's rates are one whichever listener its
     * clients use.
     */
    KafkaPaths handlers() {
        // Where each key is served and how it is checked, from its one entry in Apis: one catalog for
        // the dispatcher, ApiVersions and the authorizer.
        ApiCatalog apis = Apis.catalog();
        Optional<QuotaPolicy> quotas = quotaPolicy();
        List<PolicyFactory> afterTenants = policiesAfterTenants(apis, quotas);
        RequestHandlers shared = byServerName(apis, path(apis, advertised, Optional.empty(), afterTenants),
                afterTenants);
        Map<String, RequestHandlers> own = new LinkedHashMap<>();
        config.gateway().listeners().forEach((name, listener) -> {
            VirtualCluster cluster = config.virtualClusters().named(name).orElseThrow();
            AdvertisedListener itsAddress = new AdvertisedListener(config.advertisedHost(), listener.port(),
                    config.advertiseMode(), config.brokerPortsOf(name), config.sniHosts());
            own.put(name, path(apis, itsAddress, Optional.of(cluster), afterTenants));
        });
        return new KafkaPaths(shared, own, quotas);
    }

    /**
     * The handlers of the shared listener, and of each virtual cluster's own listener by its name;
     * and the quota policy they share, when any virtual cluster has quotas.
     */
    record KafkaPaths(RequestHandlers shared, Map<String, RequestHandlers> ownListeners, Optional<QuotaPolicy> quotas) {
    }

    /** The virtual clusters' quotas, when any has one. */
    private Optional<QuotaPolicy> quotaPolicy() {
        if (config.virtualClusters().isEmpty()) {
            return Optional.empty();
        }
        QuotaPolicy quotas = new QuotaPolicy(config.gateway().quotas(), metrics, System::nanoTime, previousQuotas);
        return quotas.holdsAny() ? Optional.of(quotas) : Optional.empty();
    }

    /**
     * The shared listener's handlers in advertise mode sni with virtual clusters placed by TLS
     * server name: a connection that asked for one's names (under its sniHostSuffix) gets that
     * virtual cluster's path, which advertises its names on the listener's port and places every
     * client in it as its own listener would; any other gets {@code sharedPath}.
     */
    private RequestHandlers byServerName(ApiCatalog apis, RequestHandlers sharedPath, List<PolicyFactory> afterTenants) {
        Map<String, RequestHandlers> paths = new LinkedHashMap<>();
        config.sniHosts().virtualClusters().values().forEach(names -> {
            VirtualCluster cluster = config.virtualClusters().named(names.name()).orElseThrow();
            paths.put(cluster.name(), path(apis, AdvertisedListener.sni(names.hosts(), advertised.port()),
                    Optional.of(cluster), TenantPlacement.byServerName(config.virtualClusters(), cluster), afterTenants));
        });
        if (paths.isEmpty()) {
            return sharedPath;
        }
        return connection -> connection.addressedCluster().map(paths::get).orElse(sharedPath)
                .forConnection(connection);
    }

    /** One listener's path: its clients are told {@code advertised}, and placed as its {@code listenerCluster} says. */
    private RequestHandlers path(ApiCatalog apis, AdvertisedListener advertised,
                                 Optional<VirtualCluster> listenerCluster, List<PolicyFactory> afterTenants) {
        return path(apis, advertised, listenerCluster, new TenantPlacement(config.virtualClusters(), listenerCluster),
                afterTenants);
    }

    /**
     * One path: its clients are told {@code advertised}, placed as {@code placement} says, and
     * authenticated as {@code listenerCluster}'s own listener (or the shared one) does.
     */
    private RequestHandlers path(ApiCatalog apis, AdvertisedListener advertised, Optional<VirtualCluster> listenerCluster,
                                 TenantPlacement placement, List<PolicyFactory> afterTenants) {
        RequestHandlers dispatchers = dispatchers(apis, advertised);
        List<PolicyFactory> policies = new ArrayList<>();
        if (!config.virtualClusters().isEmpty()) {
            policies.add(PolicyFactory.shared(new TenantPolicy(apis, config.virtualClusters(), placement, topology,
                    own, config.gateway().quotas())));
        }
        policies.addAll(afterTenants);
        // The policy chain reads every request before the dispatcher answers or routes it, and every
        // answer before it is written. With SASL, every connection (bootstrap and broker ports)
        // authenticates before the chain sees a request.
        RequestHandlers chained = new PolicyChain(policies).around(dispatchers);
        Optional<SaslAuthenticator> itsSasl = listenerCluster.map(cluster -> tenantSasl.get(cluster.name()))
                .or(() -> sasl);
        return itsSasl.map(s -> s.guard(chained, listenerCluster.map(VirtualCluster::name))).orElse(chained);
    }

    private RequestHandlers dispatchers(ApiCatalog apis, AdvertisedListener advertised) {
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
     * The chain's policies after the tenant policy, in the order they run. The tenant policy is
     * first, so every later policy (authorization with ACLs in the real cluster's names) sees real
     * names and the connection's virtual cluster; then the quotas, so a client's refused requests
     * count against its rates too; then the audit trail; then authorization, so no later policy
     * sees a refused request; then record validation, which decodes only what may be written, and
     * checks the plaintext; then record encryption, last.
     */
    private List<PolicyFactory> policiesAfterTenants(ApiCatalog apis, Optional<QuotaPolicy> quotas) {
        List<PolicyFactory> policies = new ArrayList<>();
        quotas.ifPresent(policy -> policies.add(PolicyFactory.shared(policy)));
        // The audit trail stands before authorization: it reads a mutating call's answer after
        // authorization did, so a call the ACLs refuse is recorded with its refusal.
        audit.ifPresent(trail -> policies.add(PolicyFactory.shared(trail.policy())));
        AuthorizationObserver refusals = audit.isPresent() ? audit.get().authorization(metrics) : metrics;
        acls.ifPresent(inForce -> policies.add(PolicyFactory.shared(new AuthorizationPolicy(apis, inForce, topology,
                refusals, own))));
        if (!config.gateway().validation().isEmpty()) {
            policies.add(PolicyFactory.shared(new ValidationPolicy(config.gateway().validation(), topology,
                    metrics)));
        }
        // After authorization and validation: only allowed, valid records are encrypted, and it
        // reads answers in the real cluster's names, before the tenant policy renames them.
        if (!config.gateway().encryption().isEmpty()) {
            policies.add(PolicyFactory.shared(new EncryptionPolicy(config.gateway().encryption(), topology, metrics)));
        }
        // Last: LFS resolution reads answers first (answer hooks run in reverse). On Produce the
        // chain seals a record before the router's LFS rewrite offloads it, so S3 holds ciphertext
        // and the broker an envelope with the encryption header; on Fetch the envelope is resolved
        // back into that ciphertext before encryption opens it.
        lfs.flatMap(runtime -> runtime.fetchResolution(config.lfsFetchResolve()))
                .ifPresent(policy -> policies.add(PolicyFactory.shared(policy)));
        return policies;
    }
}
