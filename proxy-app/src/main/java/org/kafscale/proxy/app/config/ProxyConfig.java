package org.kafscale.proxy.app.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.nio.file.Path;
import org.kafscale.proxy.app.health.ReadProbeSettings;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.BrokerPorts;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.discovery.etcd.EtcdSettings;
import org.kafscale.proxy.core.security.sasl.SaslSettings;
import org.kafscale.proxy.core.security.authz.AclSettings;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.server.ListenerLimits;
import org.kafscale.proxy.core.server.ListenerSettings;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings.ClientCertificates;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.resolve.FetchResolveSettings;
import org.kafscale.proxy.routing.fetch.ReadAheadSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's configuration, built and validated once at start-up from KafScale's environment
 * variable names (listed in {@link ConfigKey}). No component reads the environment on its own.
 *
 * @param listen where the Kafka listener binds (KAFSCALE_PROXY_ADDR)
 * @param advertisedHost the host clients are told to use
 * @param advertisedPort the port clients are told to use
 * @param advertiseMode single (node 0), brokers (every broker id at the proxy's address), ports
 *     (every broker id at a port of its own) or sni (every broker id under a name of its own)
 * @param brokerPorts in ports mode, the port of each broker id (KAFSCALE_PROXY_BROKER_PORT_BASE and _COUNT)
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
 * @param listenerLimits what clients may make the Kafka listener hold (connections, bytes, time)
 * @param listenerTls TLS on the Kafka listener (KAFSCALE_PROXY_TLS_*, {@link ListenerTlsConfig}); empty: plaintext
 * @param anyBrokerConnect connection attempts for requests any broker can answer
 * @param readProbe where and how often the readiness probe fetches
 * @param certificateExpiryWarning how long before the listener certificate expires {@code /health} says so
 * @param fetchReadAhead whether split Fetches are read ahead, and what that may hold (KAFSCALE_PROXY_FETCH_READ_AHEAD*)
 * @param drainTimeout how long requests already read may take to be answered on shutdown
 * @param logging the log format and level
 * @param lfs the LFS HTTP API, when enabled and given an address ({@link LfsConfig})
 * @param sasl SASL on the Kafka listener, when {@code KAFSCALE_PROXY_SASL_MECHANISMS} is set ({@link SaslConfig})
 * @param backendSecurity TLS and SASL on every connection to a broker ({@link BackendSecurityConfig})
 * @param acl authorization at the proxy, when an ACL file is set (KAFSCALE_PROXY_ACL_*)
 * @param aclReloadInterval how often every ACL file (the proxy's and each virtual cluster's) is read again
 * @param sniHosts in sni mode, the bootstrap's and the brokers' host names (KAFSCALE_PROXY_SNI_*),
 *     with each virtual cluster's under its sniHostSuffix; {@link SniHosts#NONE} otherwise
 * @param tlsProvider the TLS implementation of every TLS context, and why (KAFSCALE_PROXY_TLS_PROVIDER)
 * @param proxyProtocol PROXY protocol headers on the Kafka listener (KAFSCALE_PROXY_ACCEPT_PROXY_PROTOCOL)
 * @param gateway the virtual clusters and quotas of the gateway file (KAFSCALE_PROXY_GATEWAY_FILE);
 *     {@link Gateway#NONE} when unset
 * @param lfsFetchResolve LFS resolution on Fetch (KAFSCALE_LFS_PROXY_FETCH_RESOLVE_*), the gateway
 *     file's {@code lfsResolve} rules included; off without rules
 */
public record ProxyConfig(HostPort listen, String advertisedHost, int advertisedPort, AdvertiseMode advertiseMode,
                          BrokerPorts brokerPorts,
                          Optional<HostPort> health, List<HostPort> backends, Optional<EtcdSettings> etcd,
                          Duration backendCacheTtl, Duration etcdResync,
                          int maxFrameBytes, int maxInFlightPerConnection, Duration requestTimeout,
                          Duration connectTimeout, Duration metadataRefresh, int ioThreads,
                          ListenerLimits listenerLimits, Optional<ListenerTlsSettings> listenerTls,
                          ConnectAttempts anyBrokerConnect, ReadProbeSettings readProbe, Duration certificateExpiryWarning,
                          ReadAheadSettings fetchReadAhead, Duration drainTimeout, LogSettings logging, Optional<LfsSettings> lfs,
                          Optional<SaslSettings> sasl, BackendSecurity backendSecurity, Optional<AclSettings> acl,
                          Duration aclReloadInterval, SniHosts sniHosts, TlsProvider tlsProvider, ProxyProtocolMode proxyProtocol,
                          Gateway gateway,
                          FetchResolveSettings lfsFetchResolve) {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProxyConfig.class);

    /** The gateway file's virtual clusters; {@link VirtualClusters#NONE} without one. */
    public VirtualClusters virtualClusters() {
        return gateway.virtualClusters();
    }

    // The names as strings, for callers that build the settings map; each is defined once, in ConfigKey.
    public static final String ADDR = ConfigKey.ADDR.envName();
    public static final String ADVERTISED_HOST = ConfigKey.ADVERTISED_HOST.envName();
    public static final String ADVERTISED_PORT = ConfigKey.ADVERTISED_PORT.envName();
    public static final String ADVERTISE_MODE = ConfigKey.ADVERTISE_MODE.envName();
    public static final String BROKER_PORT_BASE = ConfigKey.BROKER_PORT_BASE.envName();
    public static final String BROKER_PORT_COUNT = ConfigKey.BROKER_PORT_COUNT.envName();
    public static final String SNI_BOOTSTRAP_HOST = ConfigKey.SNI_BOOTSTRAP_HOST.envName();
    public static final String SNI_BROKER_HOST_PATTERN = ConfigKey.SNI_BROKER_HOST_PATTERN.envName();
    public static final String HEALTH_ADDR = ConfigKey.HEALTH_ADDR.envName();
    public static final String BACKENDS = ConfigKey.BACKENDS.envName();
    public static final String TLS_ENABLED = ConfigKey.TLS_ENABLED.envName();
    public static final String TLS_CERT_FILE = ConfigKey.TLS_CERT_FILE.envName();
    public static final String TLS_KEY_FILE = ConfigKey.TLS_KEY_FILE.envName();
    public static final String TLS_KEY_PASSWORD = ConfigKey.TLS_KEY_PASSWORD.envName();
    public static final String TLS_KEYSTORE_FILE = ConfigKey.TLS_KEYSTORE_FILE.envName();
    public static final String TLS_KEYSTORE_PASSWORD = ConfigKey.TLS_KEYSTORE_PASSWORD.envName();
    public static final String TLS_KEYSTORE_TYPE = ConfigKey.TLS_KEYSTORE_TYPE.envName();
    public static final String TLS_CLIENT_CA_FILE = ConfigKey.TLS_CLIENT_CA_FILE.envName();
    public static final String TLS_REQUIRE_CLIENT_CERT = ConfigKey.TLS_REQUIRE_CLIENT_CERT.envName();
    public static final String TLS_PRINCIPAL_MAPPING_RULES = ConfigKey.TLS_PRINCIPAL_MAPPING_RULES.envName();
    public static final String TLS_PROTOCOLS = ConfigKey.TLS_PROTOCOLS.envName();
    public static final String TLS_CIPHERS = ConfigKey.TLS_CIPHERS.envName();
    public static final String TLS_HANDSHAKE_TIMEOUT_MS = ConfigKey.TLS_HANDSHAKE_TIMEOUT_MS.envName();
    public static final String TLS_RELOAD_INTERVAL_MS = ConfigKey.TLS_RELOAD_INTERVAL_MS.envName();
    public static final String TLS_PROVIDER = ConfigKey.TLS_PROVIDER.envName();
    public static final String ETCD_ENDPOINTS = ConfigKey.ETCD_ENDPOINTS.envName();
    public static final String ETCD_USERNAME = ConfigKey.ETCD_USERNAME.envName();
    public static final String ETCD_PASSWORD = ConfigKey.ETCD_PASSWORD.envName();
    public static final String ETCD_CA_FILE = ConfigKey.ETCD_CA_FILE.envName();
    public static final String ETCD_CERT_FILE = ConfigKey.ETCD_CERT_FILE.envName();
    public static final String ETCD_KEY_FILE = ConfigKey.ETCD_KEY_FILE.envName();
    public static final String ETCD_RESYNC_MS = ConfigKey.ETCD_RESYNC_MS.envName();
    public static final String BACKEND_CACHE_TTL_SEC = ConfigKey.BACKEND_CACHE_TTL_SEC.envName();
    public static final String MAX_FRAME_BYTES = ConfigKey.MAX_FRAME_BYTES.envName();
    public static final String MAX_IN_FLIGHT = ConfigKey.MAX_IN_FLIGHT.envName();
    public static final String REQUEST_TIMEOUT_MS = ConfigKey.REQUEST_TIMEOUT_MS.envName();
    public static final String DIAL_TIMEOUT_MS = ConfigKey.DIAL_TIMEOUT_MS.envName();
    public static final String METADATA_REFRESH_MS = ConfigKey.METADATA_REFRESH_MS.envName();
    public static final String IO_THREADS = ConfigKey.IO_THREADS.envName();
    public static final String MAX_CONNECTIONS = ConfigKey.MAX_CONNECTIONS.envName();
    public static final String MAX_CONNECTIONS_PER_IP = ConfigKey.MAX_CONNECTIONS_PER_IP.envName();
    public static final String FD_HEADROOM = ConfigKey.FD_HEADROOM.envName();
    public static final String MAX_PARTIAL_FRAME_BYTES = ConfigKey.MAX_PARTIAL_FRAME_BYTES.envName();
    public static final String FRAME_READ_TIMEOUT_MS = ConfigKey.FRAME_READ_TIMEOUT_MS.envName();
    public static final String IDLE_TIMEOUT_MS = ConfigKey.IDLE_TIMEOUT_MS.envName();
    public static final String UNAUTHENTICATED_IDLE_TIMEOUT_MS = ConfigKey.UNAUTHENTICATED_IDLE_TIMEOUT_MS.envName();
    public static final String MAX_UNREAD_ANSWER_BYTES_PER_CONNECTION =
            ConfigKey.MAX_UNREAD_ANSWER_BYTES_PER_CONNECTION.envName();
    public static final String MAX_UNREAD_ANSWER_BYTES = ConfigKey.MAX_UNREAD_ANSWER_BYTES.envName();
    public static final String BACKEND_RETRIES = ConfigKey.BACKEND_RETRIES.envName();
    public static final String BACKEND_BACKOFF_MS = ConfigKey.BACKEND_BACKOFF_MS.envName();
    public static final String READY_PROBE_TOPIC = ConfigKey.READY_PROBE_TOPIC.envName();
    public static final String READY_PROBE_PARTITION = ConfigKey.READY_PROBE_PARTITION.envName();
    public static final String READY_PROBE_INTERVAL_MS = ConfigKey.READY_PROBE_INTERVAL_MS.envName();
    public static final String HEALTH_CERT_EXPIRY_WARN_DAYS = ConfigKey.HEALTH_CERT_EXPIRY_WARN_DAYS.envName();
    public static final String FETCH_READ_AHEAD = ConfigKey.FETCH_READ_AHEAD.envName();
    public static final String FETCH_READ_AHEAD_MAX_BYTES = ConfigKey.FETCH_READ_AHEAD_MAX_BYTES.envName();
    public static final String DRAIN_TIMEOUT_MS = ConfigKey.DRAIN_TIMEOUT_MS.envName();
    public static final String LOG_FORMAT = ConfigKey.LOG_FORMAT.envName();
    public static final String LOG_LEVEL = ConfigKey.LOG_LEVEL.envName();
    public static final String SASL_MECHANISMS = ConfigKey.SASL_MECHANISMS.envName();
    public static final String SASL_CREDENTIALS_FILE = ConfigKey.SASL_CREDENTIALS_FILE.envName();
    public static final String SASL_MAX_REAUTH_MS = ConfigKey.SASL_MAX_REAUTH_MS.envName();
    public static final String SASL_MAX_CONCURRENT_AUTHENTICATIONS =
            ConfigKey.SASL_MAX_CONCURRENT_AUTHENTICATIONS.envName();
    public static final String SASL_MAX_TOKEN_BYTES = ConfigKey.SASL_MAX_TOKEN_BYTES.envName();
    public static final String SASL_OAUTHBEARER_JWKS_URL = ConfigKey.SASL_OAUTHBEARER_JWKS_URL.envName();
    public static final String SASL_OAUTHBEARER_EXPECTED_ISSUER = ConfigKey.SASL_OAUTHBEARER_EXPECTED_ISSUER.envName();
    public static final String SASL_OAUTHBEARER_EXPECTED_AUDIENCE =
            ConfigKey.SASL_OAUTHBEARER_EXPECTED_AUDIENCE.envName();
    public static final String SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS =
            ConfigKey.SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS.envName();
    public static final String SASL_OAUTHBEARER_SCOPE_CLAIM_NAME = ConfigKey.SASL_OAUTHBEARER_SCOPE_CLAIM_NAME.envName();
    public static final String SASL_OAUTHBEARER_SUB_CLAIM_NAME = ConfigKey.SASL_OAUTHBEARER_SUB_CLAIM_NAME.envName();
    public static final String BACKEND_TLS_ENABLED = ConfigKey.BACKEND_TLS_ENABLED.envName();
    public static final String BACKEND_TLS_CA_FILE = ConfigKey.BACKEND_TLS_CA_FILE.envName();
    public static final String BACKEND_TLS_CERT_FILE = ConfigKey.BACKEND_TLS_CERT_FILE.envName();
    public static final String BACKEND_TLS_KEY_FILE = ConfigKey.BACKEND_TLS_KEY_FILE.envName();
    public static final String BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY = ConfigKey.BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY.envName();
    public static final String BACKEND_TLS_RELOAD_INTERVAL_MS = ConfigKey.BACKEND_TLS_RELOAD_INTERVAL_MS.envName();
    public static final String BACKEND_SASL_MECHANISM = ConfigKey.BACKEND_SASL_MECHANISM.envName();
    public static final String BACKEND_SASL_USERNAME = ConfigKey.BACKEND_SASL_USERNAME.envName();
    public static final String BACKEND_SASL_PASSWORD = ConfigKey.BACKEND_SASL_PASSWORD.envName();
    public static final String BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL = ConfigKey.BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL.envName();
    public static final String BACKEND_SASL_OAUTH_CLIENT_ID = ConfigKey.BACKEND_SASL_OAUTH_CLIENT_ID.envName();
    public static final String BACKEND_SASL_OAUTH_CLIENT_SECRET = ConfigKey.BACKEND_SASL_OAUTH_CLIENT_SECRET.envName();
    public static final String BACKEND_SASL_OAUTH_SCOPE = ConfigKey.BACKEND_SASL_OAUTH_SCOPE.envName();
    public static final String ACL_FILE = ConfigKey.ACL_FILE.envName();
    public static final String ACL_RELOAD_MS = ConfigKey.ACL_RELOAD_MS.envName();
    public static final String ACCEPT_PROXY_PROTOCOL = ConfigKey.ACCEPT_PROXY_PROTOCOL.envName();
    public static final String GATEWAY_FILE = ConfigKey.GATEWAY_FILE.envName();
    public static final String CONFIG_WATCH_MS = ConfigKey.CONFIG_WATCH_MS.envName();
    public static final String ADMIN_TOKEN = ConfigKey.ADMIN_TOKEN.envName();

    /**
     * Builds the configuration from settings keyed by KafScale's environment variable names
     * (already merged from their sources, see {@link ConfigSources}), failing on the first bad one.
     */
    public static ProxyConfig from(Map<String, String> raw) {
        return from(raw, GatewayFile::read);
    }

    /**
     * As {@link #from(Map)}, with the gateway file's content from {@code readGateway} given its
     * path: a live reconfiguration passes the file it will apply (the new one, less what only a
     * restart applies), so that content is checked against the settings as at start.
     */
    public static ProxyConfig from(Map<String, String> raw, Function<Path, Gateway> readGateway) {
        Settings s = new Settings(raw);
        HostPort listen = s.hostPort(ConfigKey.ADDR);
        int advertisedPort = s.intValue(ConfigKey.ADVERTISED_PORT, listen.port());
        String mode = s.stringOrDefault(ConfigKey.ADVERTISE_MODE);
        AdvertiseMode advertiseMode;
        try {
            advertiseMode = AdvertiseMode.parse(mode);
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalid(ADVERTISE_MODE, mode, "expected single, brokers, ports or sni");
        }
        Optional<HostPort> health = s.string(ConfigKey.HEALTH_ADDR).map(v -> s.hostPort(HEALTH_ADDR, v));
        List<HostPort> backends = s.hostPorts(BACKENDS);
        TlsProvider tlsProvider = TlsProviderConfig.from(s);
        Optional<EtcdSettings> etcd = etcdSettings(s, tlsProvider);
        if (backends.isEmpty() && etcd.isEmpty()) {
            throw new ConfigException(BACKENDS + " and " + ETCD_ENDPOINTS
                    + " are both unset: name KafScale's etcd, or at least one broker (host:port)");
        }
        Duration backendCacheTtl = Duration.ofSeconds(s.longValue(ConfigKey.BACKEND_CACHE_TTL_SEC));
        Duration etcdResync = Duration.ofMillis(s.longValue(ConfigKey.ETCD_RESYNC_MS));
        int maxFrameBytes = s.intValue(ConfigKey.MAX_FRAME_BYTES);
        int maxInFlight = s.intValue(ConfigKey.MAX_IN_FLIGHT);
        Duration requestTimeout = Duration.ofMillis(s.longValue(ConfigKey.REQUEST_TIMEOUT_MS));
        Duration connectTimeout = Duration.ofMillis(s.longValue(ConfigKey.DIAL_TIMEOUT_MS));
        Duration metadataRefresh = Duration.ofMillis(s.longValue(ConfigKey.METADATA_REFRESH_MS));
        int ioThreads = s.intValue(ConfigKey.IO_THREADS);
        ListenerLimits listenerLimits = listenerLimits(s);
        Optional<ListenerTlsSettings> listenerTls = ListenerTlsConfig.from(s, tlsProvider);
        ConnectAttempts anyBrokerConnect = new ConnectAttempts(s.intValue(ConfigKey.BACKEND_RETRIES),
                Duration.ofMillis(s.longValue(ConfigKey.BACKEND_BACKOFF_MS)));
        ReadProbeSettings readProbe = readProbeSettings(s);
        Duration certificateExpiryWarning = Duration.ofDays(s.intValue(ConfigKey.HEALTH_CERT_EXPIRY_WARN_DAYS));
        // Read-ahead earns its extra Fetches where the proxy splits a client's Fetch over brokers (single).
        ReadAheadSettings fetchReadAhead = new ReadAheadSettings(s.bool(FETCH_READ_AHEAD, advertiseMode == AdvertiseMode.SINGLE),
                s.longValue(ConfigKey.FETCH_READ_AHEAD_MAX_BYTES));
        Duration drainTimeout = Duration.ofMillis(s.longValue(ConfigKey.DRAIN_TIMEOUT_MS));
        LogSettings logging = new LogSettings(
                LogSettings.Format.valueOf(s.oneOf(ConfigKey.LOG_FORMAT, List.of("plain", "json"))
                        .toUpperCase(java.util.Locale.ROOT)),
                s.oneOf(ConfigKey.LOG_LEVEL, LogSettings.LEVELS));
        Optional<LfsSettings> lfs = LfsConfig.from(s, tlsProvider);
        Optional<SaslSettings> sasl = SaslConfig.from(s);
        BackendSecurity backendSecurity = BackendSecurityConfig.from(s, tlsProvider);
        Duration aclReloadInterval = Duration.ofMillis(s.longValue(ConfigKey.ACL_RELOAD_MS));
        Optional<AclSettings> acl = s.existingFile(ACL_FILE).map(file -> new AclSettings(file, aclReloadInterval));
        BrokerPorts brokerPorts = brokerPorts(s, advertiseMode, listen, advertisedPort, health, lfs);
        SniHosts sniHosts = sniHosts(s, advertiseMode, listenerTls);
        ProxyProtocolMode proxyProtocol = s.proxyProtocol(ConfigKey.ACCEPT_PROXY_PROTOCOL);
        Gateway gateway = gateway(s, readGateway, sasl, listenerTls, advertiseMode, brokerPorts, listen);
        sniHosts = withVirtualClusters(s, sniHosts, gateway, advertiseMode);
        // Warned only once every value is known to be good, so a failed start-up prints just its one line.
        String advertisedHost = sniHosts != SniHosts.NONE ? sniHosts.bootstrapHost()
                : s.string(ConfigKey.ADVERTISED_HOST).orElseGet(() -> {
            String fallback = listen.host().isEmpty() ? "localhost" : listen.host();
            LOGGER.warn("{} is not set; advertising {} to clients", ADVERTISED_HOST, fallback);
            return fallback;
        });
        return new ProxyConfig(listen, advertisedHost, advertisedPort, advertiseMode, brokerPorts, health, backends, etcd,
                backendCacheTtl, etcdResync, maxFrameBytes, maxInFlight, requestTimeout, connectTimeout,
                metadataRefresh, ioThreads, listenerLimits, listenerTls, anyBrokerConnect, readProbe,
                certificateExpiryWarning, fetchReadAhead, drainTimeout,
                logging, lfs, sasl, backendSecurity, acl, aclReloadInterval, sniHosts, tlsProvider, proxyProtocol,
                gateway, LfsConfig.fetchResolve(s, lfs.isPresent(), gateway.lfsResolve()));
    }

    /**
     * The gateway file's virtual clusters, audit trail and record validation. A client on the shared listener is placed by the
     * principal it proves, so unless every virtual cluster has a listener of its own, clients need
     * SASL or a client certificate the listener requires: an anonymous client would be in none.
     * A virtual cluster's own listener advertises one address for every broker, so it is refused
     * in the modes that advertise a port or a name per broker.
     */
    private static Gateway gateway(Settings s, Function<Path, Gateway> readGateway,
                                   Optional<SaslSettings> sasl,
                                   Optional<ListenerTlsSettings> listenerTls, AdvertiseMode mode,
                                   BrokerPorts brokerPorts, HostPort listen) {
        Optional<java.nio.file.Path> file = s.existingFile(GATEWAY_FILE);
        if (file.isEmpty()) {
            return Gateway.NONE;
        }
        Gateway gateway = readGateway.apply(file.get());
        if (!gateway.listeners().isEmpty() && mode == AdvertiseMode.SNI) {
            throw new ConfigException(GATEWAY_FILE + ": virtual cluster '" + gateway.listeners().keySet().iterator().next()
                    + "' has a listener of its own, which " + ADVERTISE_MODE + "=sni does not support: in sni mode a "
                    + "virtual cluster is reached on the Kafka listener by TLS server names of its own (sniHostSuffix)");
        }
        tenantBrokerPorts(gateway, mode, brokerPorts, listen);
        if (!gateway.credentialsFiles().isEmpty()
                && sasl.map(settings -> !SaslSettings.needsCredentials(settings.mechanisms())).orElse(true)) {
            throw new ConfigException(GATEWAY_FILE + ": virtual cluster '" + gateway.credentialsFiles().keySet().iterator()
                    .next() + "' has a credentials file, which needs " + ConfigKey.SASL_MECHANISMS.envName()
                    + " with PLAIN or a SCRAM mechanism");
        }
        boolean certificates = listenerTls.map(tls -> tls.clientCertificates() == ClientCertificates.REQUIRED)
                .orElse(false);
        // An audit trail or record validation alone places no client, and a virtual cluster's own listener
        // places them; only a virtual cluster placed by principal needs clients that authenticate.
        if (sasl.isEmpty() && !certificates && !gateway.placesEveryClientByListener()) {
            throw new ConfigException(GATEWAY_FILE + " is set, but clients do not authenticate: virtual clusters place "
                    + "each client by its principal, so set " + ConfigKey.SASL_MECHANISMS.envName() + " or "
                    + TLS_REQUIRE_CLIENT_CERT + "=true");
        }
        return gateway;
    }

    /**
     * The host names of advertise mode sni with those of each virtual cluster that has an
     * {@code sniHostSuffix}, in the file's order; a suffix is refused, naming its path in the file,
     * in any other mode, when it is not a host name, or when it overlaps the shared names or
     * another suffix ({@link SniHosts#withVirtualCluster}).
     */
    private static SniHosts withVirtualClusters(Settings s, SniHosts shared, Gateway gateway, AdvertiseMode mode) {
        SniHosts hosts = shared;
        List<VirtualCluster> clusters = gateway.virtualClusters().all();
        for (int i = 0; i < clusters.size(); i++) {
            String suffix = gateway.sniHostSuffixes().get(clusters.get(i).name());
            if (suffix == null) {
                continue;
            }
            String at = GATEWAY_FILE + " (" + s.string(ConfigKey.GATEWAY_FILE).orElse("")
                    + ") is invalid at virtualClusters[" + i + "].sniHostSuffix: ";
            if (mode != AdvertiseMode.SNI) {
                throw new ConfigException(at + "a virtual cluster is placed by TLS server name only when "
                        + ADVERTISE_MODE + "=sni (it is " + mode.name().toLowerCase(java.util.Locale.ROOT) + ")");
            }
            try {
                hosts = hosts.withVirtualCluster(clusters.get(i).name(), suffix);
            } catch (SniHosts.InvalidName e) {
                throw new ConfigException(at + "'" + suffix + "': " + (e.part() == SniHosts.Part.BROKER_HOST_PATTERN
                        ? SNI_BROKER_HOST_PATTERN + "=" + shared.brokerHostPattern() + " does not fit: " : "")
                        + e.getMessage());
            }
        }
        return hosts;
    }

    /**
     * The host names of advertise mode sni, checked: both set, TLS on, and the advertised host, if
     * set, the bootstrap's name. In any other mode the two settings are refused, since they would
     * change nothing.
     */
    private static SniHosts sniHosts(Settings s, AdvertiseMode mode, Optional<ListenerTlsSettings> listenerTls) {
        Optional<String> bootstrap = s.string(ConfigKey.SNI_BOOTSTRAP_HOST);
        Optional<String> pattern = s.string(ConfigKey.SNI_BROKER_HOST_PATTERN);
        if (mode != AdvertiseMode.SNI) {
            bootstrap.or(() -> pattern).ifPresent(v -> {
                throw new ConfigException((bootstrap.isPresent() ? SNI_BOOTSTRAP_HOST : SNI_BROKER_HOST_PATTERN)
                        + " is set but " + ADVERTISE_MODE + "=" + mode.name().toLowerCase(java.util.Locale.ROOT)
                        + ": the SNI host names are used only when " + ADVERTISE_MODE + "=sni");
            });
            return SniHosts.NONE;
        }
        if (listenerTls.isEmpty()) {
            throw new ConfigException(ADVERTISE_MODE + "=sni needs TLS on the Kafka listener (" + TLS_ENABLED
                    + "=true): the broker a client connects to is read from its TLS server name");
        }
        for (ConfigKey key : List.of(ConfigKey.SNI_BOOTSTRAP_HOST, ConfigKey.SNI_BROKER_HOST_PATTERN)) {
            if (s.string(key).isEmpty()) {
                throw new ConfigException(key.envName() + " is required when " + ADVERTISE_MODE + "=sni");
            }
        }
        SniHosts hosts;
        try {
            hosts = SniHosts.of(bootstrap.get(), pattern.get());
        } catch (SniHosts.InvalidName e) {
            boolean ofBootstrap = e.part() == SniHosts.Part.BOOTSTRAP_HOST;
            throw ConfigException.invalid(ofBootstrap ? SNI_BOOTSTRAP_HOST : SNI_BROKER_HOST_PATTERN,
                    ofBootstrap ? bootstrap.get() : pattern.get(), e.getMessage());
        }
        s.string(ConfigKey.ADVERTISED_HOST).filter(host -> !host.equalsIgnoreCase(hosts.bootstrapHost()))
                .ifPresent(host -> {
                    throw new ConfigException(ADVERTISED_HOST + "=" + host + " differs from " + SNI_BOOTSTRAP_HOST
                            + "=" + hosts.bootstrapHost() + ": in sni mode clients bootstrap to the SNI host; "
                            + "unset " + ADVERTISED_HOST + " or make it the same name");
                });
        return hosts;
    }

    /**
     * The per-broker ports of advertise mode ports: base and count, checked to fit below 65536 and
     * to take no port another listener of the proxy binds. Unused (and not checked) in other modes.
     */
    private static BrokerPorts brokerPorts(Settings s, AdvertiseMode mode, HostPort listen, int advertisedPort,
                                           Optional<HostPort> health, Optional<LfsSettings> lfs) {
        if (mode != AdvertiseMode.PORTS) {
            return BrokerPorts.NONE;
        }
        if (s.string(ConfigKey.BROKER_PORT_BASE).isEmpty()) {
            throw new ConfigException(BROKER_PORT_BASE + " is required when " + ADVERTISE_MODE
                    + "=ports: broker id N is served on that port + N");
        }
        int base = s.intValue(ConfigKey.BROKER_PORT_BASE, 0);
        int count = s.intValue(ConfigKey.BROKER_PORT_COUNT);
        long last = (long) base + count - 1;
        if (last > 65535) {
            throw new ConfigException(BROKER_PORT_BASE + "=" + base + " with " + BROKER_PORT_COUNT + "=" + count
                    + " is invalid: the last broker port would be " + last + ", past 65535");
        }
        BrokerPorts ports = new BrokerPorts(base, count);
        Map<String, Integer> taken = new LinkedHashMap<>();
        taken.put(ADDR, listen.port());
        // The bootstrap port clients are told: a broker's port equal to it would make two nodes one address.
        taken.put(ADVERTISED_PORT, advertisedPort);
        health.ifPresent(h -> taken.put(HEALTH_ADDR, h.port()));
        lfs.map(LfsSettings::http).filter(Objects::nonNull)
                .ifPresent(http -> taken.put(LfsConfig.HTTP_ADDR, http.address().getPort()));
        taken.forEach((key, port) -> {
            if (ports.contains(port)) {
                throw new ConfigException(BROKER_PORT_BASE + "=" + base + " with " + BROKER_PORT_COUNT + "=" + count
                        + " is invalid: the broker ports " + ports + " include " + key + "'s port " + port);
            }
        });
        return ports;
    }

    /**
     * In advertise mode ports, each virtual cluster's own listener needs broker ports of its own
     * ({@code brokerPortBase}, as many as {@code KAFSCALE_PROXY_BROKER_PORT_COUNT}), apart from the
     * shared listener's, from each other's and from every listener's port; in the other modes a
     * {@code brokerPortBase} would change nothing and is refused.
     */
    private static void tenantBrokerPorts(Gateway gateway, AdvertiseMode mode, BrokerPorts shared, HostPort listen) {
        if (mode != AdvertiseMode.PORTS) {
            if (!gateway.brokerPortBases().isEmpty()) {
                throw new ConfigException(GATEWAY_FILE + ": virtual cluster '" + gateway.brokerPortBases().keySet()
                        .iterator().next() + "' has a brokerPortBase, which only " + ADVERTISE_MODE + "=ports uses");
            }
            return;
        }
        Map<String, BrokerPorts> ranges = new LinkedHashMap<>();
        ranges.put(BROKER_PORT_BASE, shared);
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put(ADDR, listen.port());
        for (Map.Entry<String, HostPort> listener : gateway.listeners().entrySet()) {
            String name = listener.getKey();
            Integer base = gateway.brokerPortBases().get(name);
            if (base == null) {
                throw new ConfigException(GATEWAY_FILE + ": virtual cluster '" + name + "' has a listener of its own, "
                        + "which " + ADVERTISE_MODE + "=ports needs a brokerPortBase for (broker id N on that port + N)");
            }
            ranges.put("the brokerPortBase of virtual cluster '" + name + "'", new BrokerPorts(base, shared.count()));
            ports.put("the listener of virtual cluster '" + name + "'", listener.getValue().port());
        }
        List<Map.Entry<String, BrokerPorts>> all = List.copyOf(ranges.entrySet());
        for (int i = 0; i < all.size(); i++) {
            BrokerPorts a = all.get(i).getValue();
            for (int j = i + 1; j < all.size(); j++) {
                BrokerPorts b = all.get(j).getValue();
                if (a.base() <= b.base() + b.count() - 1 && b.base() <= a.base() + a.count() - 1) {
                    throw new ConfigException(GATEWAY_FILE + ": the broker ports " + b + " of " + all.get(j).getKey()
                            + " overlap " + a + " of " + all.get(i).getKey());
                }
            }
            for (Map.Entry<String, Integer> port : ports.entrySet()) {
                if (a.contains(port.getValue())) {
                    throw new ConfigException(GATEWAY_FILE + ": the broker ports " + a + " of " + all.get(i).getKey()
                            + " include the port " + port.getValue() + " of " + port.getKey());
                }
            }
        }
    }

    /** The broker ports of virtual cluster {@code name}'s own listener; {@link BrokerPorts#NONE} outside mode ports. */
    public BrokerPorts brokerPortsOf(String name) {
        Integer base = gateway.brokerPortBases().get(name);
        return advertiseMode == AdvertiseMode.PORTS && base != null ? new BrokerPorts(base, brokerPorts.count())
                : BrokerPorts.NONE;
    }

    private static ListenerLimits listenerLimits(Settings s) {
        return new ListenerLimits(s.intValue(ConfigKey.MAX_CONNECTIONS), s.intValue(ConfigKey.MAX_CONNECTIONS_PER_IP),
                s.intValue(ConfigKey.FD_HEADROOM), s.longValue(ConfigKey.MAX_PARTIAL_FRAME_BYTES),
                Duration.ofMillis(s.longValue(ConfigKey.FRAME_READ_TIMEOUT_MS)),
                Duration.ofMillis(s.longValue(ConfigKey.IDLE_TIMEOUT_MS)),
                s.intValue(ConfigKey.MAX_UNREAD_ANSWER_BYTES_PER_CONNECTION),
                s.longValue(ConfigKey.MAX_UNREAD_ANSWER_BYTES),
                Duration.ofMillis(s.longValue(ConfigKey.UNAUTHENTICATED_IDLE_TIMEOUT_MS)));
    }

    private static ReadProbeSettings readProbeSettings(Settings s) {
        Optional<String> topic = s.string(ConfigKey.READY_PROBE_TOPIC);
        OptionalInt partition = s.string(ConfigKey.READY_PROBE_PARTITION).isEmpty() ? OptionalInt.empty()
                : OptionalInt.of(s.intValue(ConfigKey.READY_PROBE_PARTITION, 0));
        if (partition.isPresent() && topic.isEmpty()) {
            throw new ConfigException(READY_PROBE_PARTITION + " is set but " + READY_PROBE_TOPIC
                    + " is not: name the topic the partition belongs to");
        }
        return new ReadProbeSettings(topic, partition, Duration.ofMillis(s.longValue(ConfigKey.READY_PROBE_INTERVAL_MS)));
    }

    private static Optional<EtcdSettings> etcdSettings(Settings s, TlsProvider tlsProvider) {
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
        return Optional.of(new EtcdSettings(urls, s.string(ETCD_USERNAME), s.string(ETCD_PASSWORD), ca, cert, key,
                tlsProvider));
    }

    public ListenerSettings listenerSettings() {
        return listenerSettings(listen, brokerPorts);
    }

    /**
     * The same settings for a listener at {@code bind} with broker ports {@code ports} (a virtual
     * cluster's own): the same limits, TLS and PROXY protocol, each listener counting its own
     * connections.
     */
    public ListenerSettings listenerSettings(HostPort bind, BrokerPorts ports) {
        return new ListenerSettings(bind.toBindAddress(), maxFrameBytes, maxInFlightPerConnection, requestTimeout,
                connectTimeout, ioThreads, listenerLimits, ports, listenerTls, sniHosts, proxyProtocol);
    }
}
