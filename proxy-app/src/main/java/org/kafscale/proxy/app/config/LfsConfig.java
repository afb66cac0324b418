package org.kafscale.proxy.app.config;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.HttpSettings;
import org.kafscale.proxy.lfs.http.TlsSettings;
import org.kafscale.proxy.lfs.http.TrustedProxies;
import org.kafscale.proxy.core.security.tls.TlsProvider;
import org.kafscale.proxy.lfs.limits.LfsLimits;
import org.kafscale.proxy.lfs.publish.PublishSettings;
import org.kafscale.proxy.lfs.resolve.FetchResolveSettings;
import org.kafscale.proxy.lfs.resolve.ResolveRule;
import org.kafscale.proxy.lfs.rewrite.OffloadSettings;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.lfs.tracker.TrackerSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LFS part of the configuration: read only when {@code KAFSCALE_PROXY_LFS_ENABLED} is true,
 * and then validated as strictly as the rest (a bad value stops start-up naming key, value and
 * what is allowed).
 */
public final class LfsConfig {
    private static final Logger LOGGER = LoggerFactory.getLogger(LfsConfig.class);
    /** The original's produce timeout_ms. */
    private static final Duration PRODUCE_TIMEOUT = Duration.ofSeconds(15);

    public static final String LFS_ENABLED = ConfigKey.LFS_ENABLED.envName();
    public static final String HTTP_ADDR = ConfigKey.LFS_HTTP_ADDR.envName();
    public static final String S3_BUCKET = ConfigKey.LFS_S3_BUCKET.envName();
    public static final String S3_REGION = ConfigKey.LFS_S3_REGION.envName();
    public static final String S3_ENDPOINT = ConfigKey.LFS_S3_ENDPOINT.envName();
    public static final String S3_PUBLIC_ENDPOINT = ConfigKey.LFS_S3_PUBLIC_ENDPOINT.envName();
    public static final String S3_ACCESS_KEY = ConfigKey.LFS_S3_ACCESS_KEY.envName();
    public static final String S3_SECRET_KEY = ConfigKey.LFS_S3_SECRET_KEY.envName();
    public static final String S3_SESSION_TOKEN = ConfigKey.LFS_S3_SESSION_TOKEN.envName();
    public static final String S3_FORCE_PATH_STYLE = ConfigKey.LFS_S3_FORCE_PATH_STYLE.envName();
    public static final String S3_ENSURE_BUCKET = ConfigKey.LFS_S3_ENSURE_BUCKET.envName();
    public static final String S3_HEALTH_INTERVAL_SEC = ConfigKey.LFS_S3_HEALTH_INTERVAL_SEC.envName();
    public static final String S3_NAMESPACE = ConfigKey.S3_NAMESPACE.envName();
    public static final String MAX_BLOB_SIZE = ConfigKey.LFS_MAX_BLOB_SIZE.envName();
    public static final String REWRITE_TOPICS = ConfigKey.LFS_PROXY_REWRITE_TOPICS.envName();
    public static final String OFFLOAD_TOPICS = ConfigKey.LFS_PROXY_OFFLOAD_TOPICS.envName();
    public static final String OFFLOAD_THRESHOLD_BYTES = ConfigKey.LFS_PROXY_OFFLOAD_THRESHOLD_BYTES.envName();
    public static final String FETCH_RESOLVE_TOPICS = ConfigKey.LFS_FETCH_RESOLVE_TOPICS.envName();
    public static final String FETCH_RESOLVE_MEMORY_BYTES = ConfigKey.LFS_FETCH_RESOLVE_MEMORY_BYTES.envName();
    public static final String CHUNK_SIZE = ConfigKey.LFS_CHUNK_SIZE.envName();
    public static final String CHECKSUM_ALGO = ConfigKey.LFS_CHECKSUM_ALGO.envName();
    public static final String PROXY_ID = ConfigKey.LFS_PROXY_ID.envName();
    public static final String HTTP_API_KEY = ConfigKey.LFS_HTTP_API_KEY.envName();
    public static final String HTTP_ALLOWED_ORIGINS = ConfigKey.LFS_HTTP_ALLOWED_ORIGINS.envName();
    public static final String TRUSTED_PROXIES = ConfigKey.LFS_TRUSTED_PROXIES.envName();
    public static final String HTTP_ACCEPT_PROXY_PROTOCOL = ConfigKey.LFS_HTTP_ACCEPT_PROXY_PROTOCOL.envName();
    public static final String HTTP_READ_TIMEOUT_SEC = ConfigKey.LFS_HTTP_READ_TIMEOUT_SEC.envName();
    public static final String HTTP_WRITE_TIMEOUT_SEC = ConfigKey.LFS_HTTP_WRITE_TIMEOUT_SEC.envName();
    public static final String HTTP_IDLE_TIMEOUT_SEC = ConfigKey.LFS_HTTP_IDLE_TIMEOUT_SEC.envName();
    public static final String HTTP_HEADER_TIMEOUT_SEC = ConfigKey.LFS_HTTP_HEADER_TIMEOUT_SEC.envName();
    public static final String HTTP_MAX_HEADER_BYTES = ConfigKey.LFS_HTTP_MAX_HEADER_BYTES.envName();
    public static final String HTTP_SHUTDOWN_TIMEOUT_SEC = ConfigKey.LFS_HTTP_SHUTDOWN_TIMEOUT_SEC.envName();
    public static final String HTTP_TLS_ENABLED = ConfigKey.LFS_HTTP_TLS_ENABLED.envName();
    public static final String HTTP_TLS_CERT_FILE = ConfigKey.LFS_HTTP_TLS_CERT_FILE.envName();
    public static final String HTTP_TLS_KEY_FILE = ConfigKey.LFS_HTTP_TLS_KEY_FILE.envName();
    public static final String HTTP_TLS_CLIENT_CA_FILE = ConfigKey.LFS_HTTP_TLS_CLIENT_CA_FILE.envName();
    public static final String HTTP_TLS_REQUIRE_CLIENT_CERT = ConfigKey.LFS_HTTP_TLS_REQUIRE_CLIENT_CERT.envName();
    public static final String TOPIC_MAX_LENGTH = ConfigKey.LFS_TOPIC_MAX_LENGTH.envName();
    public static final String DOWNLOAD_TTL_SEC = ConfigKey.LFS_DOWNLOAD_TTL_SEC.envName();
    public static final String PRESIGN_ENABLED = ConfigKey.LFS_PRESIGN_ENABLED.envName();
    public static final String UPLOAD_SESSION_TTL_SEC = ConfigKey.LFS_UPLOAD_SESSION_TTL_SEC.envName();
    public static final String DIAL_TIMEOUT_MS = ConfigKey.LFS_DIAL_TIMEOUT_MS.envName();
    public static final String BACKEND_RETRIES = ConfigKey.LFS_BACKEND_RETRIES.envName();
    public static final String BACKEND_BACKOFF_MS = ConfigKey.LFS_BACKEND_BACKOFF_MS.envName();
    public static final String TEMP_DIR = ConfigKey.LFS_TEMP_DIR.envName();
    public static final String TRACKER_ENABLED = ConfigKey.LFS_TRACKER_ENABLED.envName();
    public static final String TRACKER_TOPIC = ConfigKey.LFS_TRACKER_TOPIC.envName();
    public static final String TRACKER_BATCH_SIZE = ConfigKey.LFS_TRACKER_BATCH_SIZE.envName();
    public static final String TRACKER_FLUSH_MS = ConfigKey.LFS_TRACKER_FLUSH_MS.envName();
    public static final String TRACKER_ENSURE_TOPIC = ConfigKey.LFS_TRACKER_ENSURE_TOPIC.envName();
    public static final String TRACKER_PARTITIONS = ConfigKey.LFS_TRACKER_PARTITIONS.envName();
    public static final String TRACKER_REPLICATION_FACTOR = ConfigKey.LFS_TRACKER_REPLICATION_FACTOR.envName();
    public static final String MAX_UPLOADS = ConfigKey.LFS_MAX_UPLOADS.envName();
    public static final String MAX_UPLOADS_PER_CLIENT = ConfigKey.LFS_MAX_UPLOADS_PER_CLIENT.envName();
    public static final String DOWNLOAD_TEMP_BYTES = ConfigKey.LFS_DOWNLOAD_TEMP_BYTES.envName();
    public static final String IO_THREADS = ConfigKey.LFS_IO_THREADS.envName();
    public static final String MAX_DOWNLOADS = ConfigKey.LFS_MAX_DOWNLOADS.envName();
    public static final String UPLOAD_MIN_BYTES_PER_SEC = ConfigKey.LFS_UPLOAD_MIN_BYTES_PER_SEC.envName();
    public static final String UPLOAD_RATE_WINDOW_SEC = ConfigKey.LFS_UPLOAD_RATE_WINDOW_SEC.envName();

    private LfsConfig() {
    }

    /**
     * The LFS settings when LFS is enabled and its HTTP address is set; empty otherwise (enabled
     * without an address is validated, then logged: the HTTP API stays off).
     */
    static Optional<LfsSettings> from(Settings s, TlsProvider tlsProvider) {
        if (!s.bool(LFS_ENABLED, false)) {
            return Optional.empty();
        }
        S3Settings s3 = s3(s);
        String algName = s.stringOrDefault(ConfigKey.LFS_CHECKSUM_ALGO);
        ChecksumAlg alg = ChecksumAlg.parse(algName).orElseThrow(() ->
                ConfigException.invalid(CHECKSUM_ALGO, algName, "expected sha256, md5, crc32 or none"));
        PublishSettings publish = new PublishSettings(s.intValue(ConfigKey.LFS_BACKEND_RETRIES),
                Duration.ofMillis(s.longValue(ConfigKey.LFS_BACKEND_BACKOFF_MS)), PRODUCE_TIMEOUT,
                PublishSettings.DEFAULT_MAX_BROKERS);
        TrackerSettings tracker = new TrackerSettings(s.bool(TRACKER_ENABLED, true),
                s.stringOrDefault(ConfigKey.LFS_TRACKER_TOPIC), s.intValue(ConfigKey.LFS_TRACKER_BATCH_SIZE),
                Duration.ofMillis(s.longValue(ConfigKey.LFS_TRACKER_FLUSH_MS)), s.bool(TRACKER_ENSURE_TOPIC, true),
                s.intValue(ConfigKey.LFS_TRACKER_PARTITIONS),
                (short) s.intValue(ConfigKey.LFS_TRACKER_REPLICATION_FACTOR));
        Path tempDir = s.string(ConfigKey.LFS_TEMP_DIR).map(v -> {
            Path dir = Path.of(v);
            if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
                throw ConfigException.invalid(TEMP_DIR, v, "expected a writable directory");
            }
            return dir;
        }).orElse(Path.of(System.getProperty("java.io.tmpdir")));
        Optional<HttpSettings> http = http(s, tlsProvider);
        long maxBlob = s.longValue(ConfigKey.LFS_MAX_BLOB_SIZE);
        LfsSettings settings = new LfsSettings(s3, http.orElse(HttpSettings.defaults(new InetSocketAddress(0))),
                publish, tracker, s.stringOrDefault(ConfigKey.S3_NAMESPACE), s.string(PROXY_ID, ""),
                maxBlob, s.intValue(ConfigKey.LFS_CHUNK_SIZE), alg,
                s.intValue(ConfigKey.LFS_TOPIC_MAX_LENGTH), Duration.ofSeconds(s.longValue(ConfigKey.LFS_DOWNLOAD_TTL_SEC)),
                s.bool(PRESIGN_ENABLED, false), Duration.ofSeconds(s.longValue(ConfigKey.LFS_UPLOAD_SESSION_TTL_SEC)),
                Duration.ofMillis(s.longValue(ConfigKey.LFS_DIAL_TIMEOUT_MS)), tempDir, rewriteTopics(s),
                limits(s, maxBlob));
        settings = settings.withOffload(offload(s, maxBlob));
        if (http.isEmpty()) {
            LOGGER.warn("{} is true but {} is unset: the LFS HTTP API stays off", LFS_ENABLED, HTTP_ADDR);
            return Optional.empty();
        }
        return Optional.of(settings);
    }

    /** What the module holds at most for its clients; a bound that could never admit a request is refused. */
    private static LfsLimits limits(Settings s, long maxBlob) {
        int uploads = s.intValue(ConfigKey.LFS_MAX_UPLOADS);
        int perClient = s.intValue(ConfigKey.LFS_MAX_UPLOADS_PER_CLIENT);
        if (perClient > uploads) {
            throw ConfigException.invalid(MAX_UPLOADS_PER_CLIENT, String.valueOf(perClient),
                    "expected at most " + MAX_UPLOADS + " (" + uploads + ")");
        }
        long tempBytes = s.longValue(ConfigKey.LFS_DOWNLOAD_TEMP_BYTES);
        if (tempBytes < maxBlob) {
            throw ConfigException.invalid(DOWNLOAD_TEMP_BYTES, String.valueOf(tempBytes),
                    "expected at least " + MAX_BLOB_SIZE + " (" + maxBlob + "), or the largest payload could never be "
                            + "downloaded");
        }
        return new LfsLimits(s.intValue(ConfigKey.LFS_IO_THREADS), uploads, perClient,
                s.longValue(ConfigKey.LFS_UPLOAD_MIN_BYTES_PER_SEC),
                Duration.ofSeconds(s.longValue(ConfigKey.LFS_UPLOAD_RATE_WINDOW_SEC)),
                s.intValue(ConfigKey.LFS_MAX_DOWNLOADS), tempBytes);
    }

    /**
     * Resolution on Fetch: {@code KAFSCALE_LFS_PROXY_FETCH_RESOLVE_TOPICS}, comma-separated regular
     * expressions (a bad one stops start-up naming the key), and its memory budget. Topics set
     * without LFS on (no S3 to read from) stop start-up too, rather than deliver envelopes to
     * consumers that were promised payloads; so do the gateway file's rules ({@code gatewayRules}).
     */
    static FetchResolveSettings fetchResolve(Settings s, boolean lfsOn, List<ResolveRule> gatewayRules) {
        List<ResolveRule> rules = new ArrayList<>();
        for (String item : s.list(FETCH_RESOLVE_TOPICS)) {
            try {
                rules.add(ResolveRule.forEveryone(Pattern.compile(item)));
            } catch (PatternSyntaxException e) {
                throw ConfigException.invalid(FETCH_RESOLVE_TOPICS, item, "expected regular expressions, "
                        + "comma-separated: " + e.getDescription());
            }
        }
        long memory = s.longValue(ConfigKey.LFS_FETCH_RESOLVE_MEMORY_BYTES);
        if ((!rules.isEmpty() || !gatewayRules.isEmpty()) && !lfsOn) {
            String what = rules.isEmpty() ? GatewayFile.SETTING + "'s lfsResolve section" : FETCH_RESOLVE_TOPICS;
            throw new ConfigException(what + " is set, which needs " + LFS_ENABLED + "=true and " + HTTP_ADDR
                    + " (the payloads are read from LFS's bucket)");
        }
        rules.addAll(gatewayRules);
        return new FetchResolveSettings(rules, memory);
    }

    /** {@code KAFSCALE_LFS_PROXY_REWRITE_TOPICS}: comma-separated names, {@code *} for all; empty for none. */
    private static Set<String> rewriteTopics(Settings s) {
        Set<String> topics = new LinkedHashSet<>();
        for (String name : s.string(REWRITE_TOPICS, "").split(",")) {
            if (!name.isBlank()) {
                topics.add(name.trim());
            }
        }
        return topics;
    }

    /**
     * {@code KAFSCALE_LFS_PROXY_OFFLOAD_TOPICS} (comma-separated regular expressions, each matched
     * against the whole topic name) and the size over which their records are offloaded. A
     * threshold no record could pass (at least the largest frame the listener reads) or at which
     * every offloaded record would be refused (at least the largest payload) is refused here.
     */
    private static OffloadSettings offload(Settings s, long maxBlob) {
        String value = s.string(OFFLOAD_TOPICS, "");
        List<Pattern> patterns = new ArrayList<>();
        for (String expression : value.split(",")) {
            if (expression.isBlank()) {
                continue;
            }
            try {
                patterns.add(Pattern.compile(expression.trim()));
            } catch (PatternSyntaxException e) {
                throw ConfigException.invalid(OFFLOAD_TOPICS, value, "expected comma-separated regular expressions; `"
                        + expression.trim() + "` is not one: " + e.getDescription());
            }
        }
        long threshold = s.longValue(ConfigKey.LFS_PROXY_OFFLOAD_THRESHOLD_BYTES);
        int maxFrame = s.intValue(ConfigKey.MAX_FRAME_BYTES);
        if (!patterns.isEmpty() && threshold >= maxFrame) {
            throw ConfigException.invalid(OFFLOAD_THRESHOLD_BYTES, String.valueOf(threshold), "expected less than "
                    + ConfigKey.MAX_FRAME_BYTES.envName() + " (" + maxFrame + "), or no request could carry a record "
                    + "over it");
        }
        if (!patterns.isEmpty() && threshold >= maxBlob) {
            throw ConfigException.invalid(OFFLOAD_THRESHOLD_BYTES, String.valueOf(threshold), "expected less than "
                    + MAX_BLOB_SIZE + " (" + maxBlob + "), or every record over it would be refused");
        }
        return new OffloadSettings(patterns, threshold);
    }

    private static S3Settings s3(Settings s) {
        String bucket = s.string(ConfigKey.LFS_S3_BUCKET).orElseThrow(() ->
                new ConfigException(S3_BUCKET + " is required when " + LFS_ENABLED + " is true"));
        if (S3Settings.BLOCKED_BUCKETS.contains(bucket)) {
            throw ConfigException.invalid(S3_BUCKET, bucket, "an example bucket name is refused; expected your bucket");
        }
        String region = s.string(ConfigKey.LFS_S3_REGION).orElseThrow(() ->
                new ConfigException(S3_REGION + " is required when " + LFS_ENABLED + " is true"));
        Optional<URI> endpoint = s.string(ConfigKey.LFS_S3_ENDPOINT).map(v -> url(S3_ENDPOINT, v));
        Optional<URI> publicEndpoint = s.string(ConfigKey.LFS_S3_PUBLIC_ENDPOINT).map(v -> url(S3_PUBLIC_ENDPOINT, v));
        return new S3Settings(bucket, region, endpoint, publicEndpoint, s.string(S3_ACCESS_KEY, ""),
                s.string(S3_SECRET_KEY, ""), s.string(S3_SESSION_TOKEN, ""),
                s.bool(S3_FORCE_PATH_STYLE, endpoint.isPresent()), s.bool(S3_ENSURE_BUCKET, false),
                Duration.ofSeconds(s.longValue(ConfigKey.LFS_S3_HEALTH_INTERVAL_SEC)));
    }

    private static Optional<HttpSettings> http(Settings s, TlsProvider tlsProvider) {
        Optional<HostPort> address = s.string(ConfigKey.LFS_HTTP_ADDR).map(v -> s.hostPort(HTTP_ADDR, v));
        Optional<TlsSettings> tls = Optional.empty();
        if (s.bool(HTTP_TLS_ENABLED, false)) {
            Path cert = s.existingFile(HTTP_TLS_CERT_FILE).orElseThrow(() ->
                    new ConfigException(HTTP_TLS_CERT_FILE + " is required when " + HTTP_TLS_ENABLED + " is true"));
            Path key = s.existingFile(HTTP_TLS_KEY_FILE).orElseThrow(() ->
                    new ConfigException(HTTP_TLS_KEY_FILE + " is required when " + HTTP_TLS_ENABLED + " is true"));
            tls = Optional.of(new TlsSettings(cert, key, s.existingFile(HTTP_TLS_CLIENT_CA_FILE),
                    s.bool(HTTP_TLS_REQUIRE_CLIENT_CERT, false), tlsProvider));
        }
        Duration read = Duration.ofSeconds(s.longValue(ConfigKey.LFS_HTTP_READ_TIMEOUT_SEC));
        Duration write = Duration.ofSeconds(s.longValue(ConfigKey.LFS_HTTP_WRITE_TIMEOUT_SEC));
        Duration idle = Duration.ofSeconds(s.longValue(ConfigKey.LFS_HTTP_IDLE_TIMEOUT_SEC));
        Duration header = Duration.ofSeconds(s.longValue(ConfigKey.LFS_HTTP_HEADER_TIMEOUT_SEC));
        int maxHeader = s.intValue(ConfigKey.LFS_HTTP_MAX_HEADER_BYTES);
        Duration shutdown = Duration.ofSeconds(s.longValue(ConfigKey.LFS_HTTP_SHUTDOWN_TIMEOUT_SEC));
        String apiKey = s.string(HTTP_API_KEY, "");
        Optional<TlsSettings> chosenTls = tls;
        List<String> origins = s.list(HTTP_ALLOWED_ORIGINS);
        ProxyProtocolMode proxyProtocol = s.proxyProtocol(ConfigKey.LFS_HTTP_ACCEPT_PROXY_PROTOCOL);
        TrustedProxies trustedProxies = trustedProxies(s);
        return address.map(a -> new HttpSettings(a.toBindAddress(), apiKey, read, write, idle, header, maxHeader,
                shutdown, chosenTls, origins, proxyProtocol, trustedProxies));
    }

    private static TrustedProxies trustedProxies(Settings s) {
        try {
            return TrustedProxies.parse(s.list(TRUSTED_PROXIES));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TRUSTED_PROXIES + ": " + e.getMessage());
        }
    }

    private static URI url(String key, String value) {
        try {
            URI uri = new URI(value);
            if (uri.getHost() == null || !("http".equalsIgnoreCase(uri.getScheme())
                    || "https".equalsIgnoreCase(uri.getScheme()))) {
                throw ConfigException.invalid(key, value, "expected an http:// or https:// URL");
            }
            return uri;
        } catch (java.net.URISyntaxException e) {
            throw ConfigException.invalid(key, value, "expected an http:// or https:// URL");
        }
    }
}
