package org.kafscale.proxy.app.authz;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.security.authz.AclAuthorizer;
import org.kafscale.proxy.core.security.authz.AclSettings;
import org.kafscale.proxy.core.security.authz.AclsInForce;
import org.kafscale.proxy.core.tenant.TenantAcls;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/**
 * Every ACL file of the proxy: its own ({@code KAFSCALE_PROXY_ACL_FILE}, in real names) and each
 * virtual cluster's ({@code aclFile} in the gateway file, in the tenant's names), each read at
 * start and followed like the other. Authorization is on when any of them is configured.
 */
public final class AclFiles {
    private final Optional<AclFileWatcher> shared;
    private final Map<String, AclFileWatcher> tenants;
    /** The re-reads scheduled by {@link #follow}. */
    private final List<ScheduledFuture<?>> following = new CopyOnWriteArrayList<>();

    private AclFiles(Optional<AclFileWatcher> shared, Map<String, AclFileWatcher> tenants) {
        this.shared = shared;
        this.tenants = tenants;
    }

    /**
     * Reads every ACL file of {@code config}, before anything else starts.
     *
     * @throws org.kafscale.proxy.app.config.ConfigException naming the file's setting (or its path in
     *     the gateway file) when one cannot be read, does not parse, or names a principal outside its
     *     virtual cluster
     */
    public static AclFiles load(ProxyConfig config) {
        Optional<AclFileWatcher> shared = config.acl().map(AclFileWatcher::load);
        Duration reload = config.aclReloadInterval();
        Map<String, AclFileWatcher> tenants = new LinkedHashMap<>();
        VirtualClusters clusters = config.virtualClusters();
        int index = 0;
        for (VirtualCluster cluster : clusters.all()) {
            Path file = config.gateway().aclFiles().get(cluster.name());
            if (file != null) {
                String setting = "KAFSCALE_PROXY_GATEWAY_FILE virtualClusters[" + index + "].aclFile";
                tenants.put(cluster.name(), AclFileWatcher.load(new AclSettings(file, reload), setting,
                        rules -> TenantAcls.inRealNames(cluster, rules)));
            }
            index++;
        }
        return new AclFiles(shared, Map.copyOf(tenants));
    }

    /** Who decides whose requests, when any ACL file is configured. */
    public Optional<AclsInForce> inForce() {
        if (tenants.isEmpty()) {
            return shared.map(AclFileWatcher::authorizer);
        }
        Map<String, AclAuthorizer> own = new LinkedHashMap<>();
        tenants.forEach((name, watcher) -> own.put(name, watcher.authorizer()));
        return Optional.of(new TenantAcls(shared.map(AclFileWatcher::authorizer), own));
    }

    /** Re-reads every file on {@code housekeeping} from now on, until {@link #stopFollowing}. */
    public void follow(ScheduledExecutorService housekeeping) {
        shared.ifPresent(watcher -> following.add(watcher.follow(housekeeping)));
        tenants.values().forEach(watcher -> following.add(watcher.follow(housekeeping)));
    }

    /** Reads the files no more: a reloaded configuration follows its own. */
    public void stopFollowing() {
        following.forEach(task -> task.cancel(false));
        following.clear();
    }
}
