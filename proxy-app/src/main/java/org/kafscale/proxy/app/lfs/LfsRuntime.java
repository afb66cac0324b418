package org.kafscale.proxy.app.lfs;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.discovery.etcd.EtcdSettings;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.lfs.LfsModule;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.rewrite.LfsProduceRewriter;
import org.kafscale.proxy.lfs.resolve.FetchResolveSettings;
import org.kafscale.proxy.lfs.resolve.LfsFetchResolution;
import org.kafscale.proxy.lfs.resolve.ResolutionServices;
import org.kafscale.proxy.lfs.uploads.UploadRoutes;

/**
 * The LFS HTTP API of a running proxy: the module on the proxy's topology, TTL gate and metrics
 * registry, with the multipart routes (sessions in etcd when the proxy uses etcd). The module
 * brings its own event loops and blocking pool, so LFS work never runs on the Kafka workers.
 */
public final class LfsRuntime implements AutoCloseable {
    private final LfsModule module;
    private final UploadRoutes uploads;
    private final Optional<Client> etcd;
    /** Where the resolution on Fetch registers its series. */
    private final MeterRegistry registry;
    /** What every Kafka path's resolution on Fetch shares (its memory budget), made with the first. */
    private ResolutionServices resolution;

    private LfsRuntime(LfsModule module, UploadRoutes uploads, Optional<Client> etcd, MeterRegistry registry) {
        this.module = module;
        this.uploads = uploads;
        this.etcd = etcd;
        this.registry = registry;
    }

    public static LfsRuntime start(ProxyConfig config, LfsSettings settings, TopologySource topology,
                                   MeterRegistry metrics) throws InterruptedException {
        return start(config, settings, topology, metrics, LfsTracker.NONE);
    }

    /** As above, every upload and download event told to {@code audit} too. */
    public static LfsRuntime start(ProxyConfig config, LfsSettings settings, TopologySource topology,
                                   MeterRegistry metrics, LfsTracker audit) throws InterruptedException {
        // Its own etcd client: the topology's is closed with the topology, the sessions' with this.
        Optional<Client> etcd = config.etcd().map(EtcdSettings::connect);
        UploadRoutes uploads = new UploadRoutes(etcd, Clock.systemUTC());
        try {
            LfsModule module = LfsModule.start(settings, topology, topology.gate(), metrics, List.of(uploads),
                    config.backendSecurity(), audit);
            return new LfsRuntime(module, uploads, etcd, metrics);
        } catch (RuntimeException | InterruptedException e) {
            uploads.close();
            etcd.ifPresent(Client::close);
            throw e;
        }
    }

    /** The Kafka-side rewrite when rewrite or offload topics are set, else {@link ProduceRewriter#NONE}. */
    public ProduceRewriter produceRewriter() {
        LfsSettings settings = module.context().settings();
        return settings.rewriteTopics().isEmpty() && !settings.offload().isOn() ? ProduceRewriter.NONE
                : new LfsProduceRewriter(module.context(), settings.rewriteTopics(), settings.offload());
    }

    /**
     * The policy that resolves envelopes on Fetch, when {@code settings} has rules; made for each
     * Kafka path (a live reload makes new ones), its series registered once per registry.
     */
    public synchronized Optional<LfsFetchResolution> fetchResolution(FetchResolveSettings settings) {
        if (settings.isOff()) {
            return Optional.empty();
        }
        if (resolution == null) {
            // The budget is a setting of the start (only the gateway file's rules reload).
            resolution = new ResolutionServices(module.context(), settings.memoryBytes(), registry);
        }
        return Optional.of(new LfsFetchResolution(settings.rules(), resolution));
    }

    public InetSocketAddress httpAddress() {
        return module.httpAddress();
    }

    @Override
    public void close() {
        module.close();
        uploads.close();
        etcd.ifPresent(Client::close);
    }
}
