package org.kafscale.proxy.app;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.kafscale.proxy.app.audit.AuditRuntime;
import org.kafscale.proxy.app.authz.AclFiles;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.lfs.LfsRuntime;
import org.kafscale.proxy.app.metrics.ProxyMetrics;
import org.kafscale.proxy.app.reload.ReloadTarget;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.quota.QuotaPolicy;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.sasl.SaslAuthenticator;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.KafkaProxyServer;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.discovery.TopologySource;

/**
 * The Kafka paths in force on every listener: made from the configuration at start, and made
 * again by each live reconfiguration, which new connections then get. What a path is made from
 * that does not change live (SASL, the audit trail, the topology, the LFS runtime) is made once,
 * at start, and shared by every version.
 */
final class LivePaths implements ReloadTarget {
    /** The parts of every version of the paths. */
    record Parts(TopologySource topology, BrokerApiVersions brokerVersions, ProxyMetrics metrics,
                 Optional<LfsRuntime> lfs, Optional<SaslAuthenticator> sasl, Map<String, SaslAuthenticator> tenantSasl,
                 OwnConnections own, Optional<AuditRuntime> audit, UnaryOperator<RequestHandlers> aroundHandlers,
                 ScheduledExecutorService housekeeping) {
    }

    private final Parts parts;
    private final CurrentHandlers shared;
    private final Map<String, CurrentHandlers> tenants = new LinkedHashMap<>();
    private final List<KafkaProxyServer> servers = new CopyOnWriteArrayList<>();
    private AclFiles acls;
    private Optional<QuotaPolicy> quotas;

    /** The paths of {@code config}, with its ACL files (already loaded, and followed from here on). */
    LivePaths(Parts parts, ProxyConfig config, AclFiles acls) {
        this.parts = parts;
        this.acls = acls;
        KafkaPathAssembly.KafkaPaths paths = assemble(config, acls, Optional.empty());
        this.quotas = paths.quotas();
        this.shared = new CurrentHandlers(parts.aroundHandlers().apply(paths.shared()));
        paths.ownListeners().forEach((name, handlers) ->
                tenants.put(name, new CurrentHandlers(parts.aroundHandlers().apply(handlers))));
        acls.follow(parts.housekeeping());
    }

    /** The shared listener's handlers, always those in force. */
    RequestHandlers shared() {
        return shared;
    }

    /** The handlers of each virtual cluster's own listener, by its name, always those in force. */
    Map<String, RequestHandlers> ownListeners() {
        return Map.copyOf(tenants);
    }

    /** A listener serving these paths: a reload drains its connections that it changes. */
    void servedBy(KafkaProxyServer server) {
        servers.add(server);
    }

    @Override
    public synchronized void apply(ProxyConfig config, boolean reloadAcls, Predicate<ConnectionContext> affected) {
        // Loaded before anything changes: an ACL file that cannot be used refuses the reload.
        AclFiles nextAcls = reloadAcls ? AclFiles.load(config) : acls;
        KafkaPathAssembly.KafkaPaths paths = assemble(config, nextAcls, quotas);
        if (nextAcls != acls) {
            acls.stopFollowing();
            nextAcls.follow(parts.housekeeping());
            acls = nextAcls;
        }
        quotas = paths.quotas();
        shared.replace(parts.aroundHandlers().apply(paths.shared()));
        // A virtual cluster's own listener is bound at start: its set does not change live.
        paths.ownListeners().forEach((name, handlers) -> {
            CurrentHandlers current = tenants.get(name);
            if (current != null) {
                current.replace(parts.aroundHandlers().apply(handlers));
            }
        });
        servers.forEach(server -> {
            server.applyTimeouts(config.listenerLimits());
            server.drainWhere(affected);
        });
    }

    private KafkaPathAssembly.KafkaPaths assemble(ProxyConfig config, AclFiles acls, Optional<QuotaPolicy> previous) {
        AdvertisedListener advertised = new AdvertisedListener(config.advertisedHost(), config.advertisedPort(),
                config.advertiseMode(), config.brokerPorts(), config.sniHosts());
        return new KafkaPathAssembly(config, parts.topology(), advertised, parts.brokerVersions(), parts.metrics(),
                parts.lfs(), parts.sasl(), parts.tenantSasl(), acls.inForce(), parts.own(), parts.audit(), previous)
                .handlers();
    }
}
