package org.kafscale.proxy.app.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.nio.file.Path;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.discovery.etcd.EtcdSettings;
import org.kafscale.proxy.core.server.ListenerSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's configuration, built and validated once at start-up from KafScale's environment
 * variable names. No component reads the environment on its own.
 *
 * @param listen where the Kafka listener binds (KAFSCALE_PROXY_ADDR)
 * @param advertisedHost the host clients are told to use
 * @param advertisedPort the port clients are told to use
 * @param advertiseMode brokers (every broker id at the proxy's address) or single (node 0)
 * @param health where /livez and /readyz are served, if anywhere
 * @param backends the static broker list, bootstrap of the plain-Kafka source
 * @param etcd KafScale's etcd, when it is the topology
 * @param backendCacheTtl how long etcd's last good read may be routed on (KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC)
 * @param etcdResync the periodic full etcd read behind the watches
 * @param maxFrameBytes the largest Kafka frame accepted
 * @param maxInFlightPerConnection requests a client may have waiting
 * @param requestTimeout how long a broker has to answer
 * @param connectTimeout how long a broker connection may take
 * @param metadataRefresh how often the topology source re-reads the cluster
 * @param ioThreads Netty event loop threads (0: Netty's default)
 */
public record ProxyConfig(HostPort listen, String advertisedHost, int advertisedPort, AdvertiseMode advertiseMode,
                          Optional<HostPort> health, List<HostPort> backends, Optional<EtcdSettings> etcd,
                          Duration backendCacheTtl, Duration etcdResync,
                          int maxFrameBytes, int maxInFlightPerConnection, Duration requestTimeout,
                          Duration connectTimeout, Duration metadataRefresh, int ioThreads) {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProxyConfig.class);

    public static final String ADDR = "KAFSCALE_PROXY_ADDR";
    public static final String ADVERTISED_HOST = "KAFSCALE_PROXY_ADVERTISED_HOST";
    public static final String ADVERTISED_PORT = "KAFSCALE_PROXY_ADVERTISED_PORT";
    public static final String ADVERTISE_MODE = "KAFSCALE_PROXY_ADVERTISE_MODE";
    public static final String HEALTH_ADDR = "KAFSCALE_PROXY_HEALTH_ADDR";
    public static final String BACKENDS = "KAFSCALE_PROXY_BACKENDS";
    public static final String ETCD_ENDPOINTS = "KAFSCALE_PROXY_ETCD_ENDPOINTS";
    public static final String ETCD_USERNAME = "KAFSCALE_PROXY_ETCD_USERNAME";
    public static final String ETCD_PASSWORD = "KAFSCALE_PROXY_ETCD_PASSWORD";
    public static final String ETCD_CA_FILE = "KAFSCALE_PROXY_ETCD_CA_FILE";
    public static final String ETCD_CERT_FILE = "KAFSCALE_PROXY_ETCD_CERT_FILE";
    public static final String ETCD_KEY_FILE = "KAFSCALE_PROXY_ETCD_KEY_FILE";
    public static final String ETCD_RESYNC_MS = "KAFSCALE_PROXY_ETCD_RESYNC_MS";
    public static final String BACKEND_CACHE_TTL_SEC = "KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC";
    public static final String MAX_FRAME_BYTES = "KAFSCALE_PROXY_MAX_FRAME_BYTES";
    public static final String MAX_IN_FLIGHT = "KAFSCALE_PROXY_MAX_IN_FLIGHT";
    public static final String REQUEST_TIMEOUT_MS = "KAFSCALE_PROXY_REQUEST_TIMEOUT_MS";
    public static final String DIAL_TIMEOUT_MS = "KAFSCALE_PROXY_DIAL_TIMEOUT_MS";
    public static final String METADATA_REFRESH_MS = "KAFSCALE_PROXY_METADATA_REFRESH_MS";
    public static final String IO_THREADS = "KAFSCALE_PROXY_IO_THREADS";

    /** Builds the configuration from environment-style settings, failing on the first bad one. */
    public static ProxyConfig from(Map<String, String> raw) {
        Settings s = new Settings(raw);
        HostPort listen = s.hostPort(ADDR, ":9092");
        String advertisedHost = s.string(ADVERTISED_HOST).orElseGet(() -> {
            String fallback = listen.host().isEmpty() ? "localhost" : listen.host();
            LOGGER.warn("{} is not set; advertising {} to clients", ADVERTISED_HOST, fallback);
            return fallback;
        });
        int advertisedPort = s.intValue(ADVERTISED_PORT, listen.port(), 1, 65535);
        String mode = s.string(ADVERTISE_MODE, "brokers");
        AdvertiseMode advertiseMode;
        try {
            advertiseMode = AdvertiseMode.parse(mode);
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalid(ADVERTISE_MODE, mode, "expected brokers or single");
        }
        Optional<HostPort> health = s.string(HEALTH_ADDR).map(v -> s.hostPort(HEALTH_ADDR, v));
        List<HostPort> backends = s.hostPorts(BACKENDS);
        Optional<EtcdSettings> etcd = etcdSettings(s);
        if (backends.isEmpty() && etcd.isEmpty()) {
            throw new ConfigException(BACKENDS + " and " + ETCD_ENDPOINTS
                    + " are both unset: name KafScale's etcd, or at least one broker (host:port)");
        }
        return new ProxyConfig(listen, advertisedHost, advertisedPort, advertiseMode, health, backends, etcd,
                Duration.ofSeconds(s.longValue(BACKEND_CACHE_TTL_SEC, 60, 1, 86_400)),
                Duration.ofMillis(s.longValue(ETCD_RESYNC_MS, 10_000, 100, 3_600_000)),
                s.intValue(MAX_FRAME_BYTES, ListenerSettings.DEFAULT_MAX_FRAME_BYTES, 1024, Integer.MAX_VALUE),
                s.intValue(MAX_IN_FLIGHT, 100, 1, 100_000),
                Duration.ofMillis(s.longValue(REQUEST_TIMEOUT_MS, 30_000, 100, 3_600_000)),
                Duration.ofMillis(s.longValue(DIAL_TIMEOUT_MS, 5_000, 100, 600_000)),
                Duration.ofMillis(s.longValue(METADATA_REFRESH_MS, 10_000, 100, 3_600_000)),
                s.intValue(IO_THREADS, 0, 0, 1024));
    }

    private static Optional<EtcdSettings> etcdSettings(Settings s) {
        List<String> endpoints = s.list(ETCD_ENDPOINTS);
        if (endpoints.isEmpty()) {
            return Optional.empty();
        }
        for (String endpoint : endpoints) {
            if (!endpoint.matches("(?i)(https?://)?[^/\\s]+:\\d+/?")) {
                throw ConfigException.invalid(ETCD_ENDPOINTS, endpoint, "expected URLs such as http://etcd-0:2379");
            }
        }
        Optional<Path> ca = s.existingFile(ETCD_CA_FILE);
        Optional<Path> cert = s.existingFile(ETCD_CERT_FILE);
        Optional<Path> key = s.existingFile(ETCD_KEY_FILE);
        if (cert.isPresent() != key.isPresent()) {
            throw new ConfigException(ETCD_CERT_FILE + " and " + ETCD_KEY_FILE + " must be set together");
        }
        List<String> urls = endpoints.stream()
                .map(e -> e.contains("://") ? e : (ca.isPresent() ? "https://" : "http://") + e).toList();
        return Optional.of(new EtcdSettings(urls, s.string(ETCD_USERNAME), s.string(ETCD_PASSWORD), ca, cert, key));
    }

    public ListenerSettings listenerSettings() {
        return new ListenerSettings(listen.toBindAddress(), maxFrameBytes, maxInFlightPerConnection, requestTimeout,
                connectTimeout, ioThreads);
    }
}
