package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.kafscale.proxy.app.ProxyRuntime;
import org.kafscale.proxy.app.config.LfsConfig;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.reload.ConfigInputs;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/** A proxy started in the test JVM in front of a test cluster, on free loopback ports. */
final class RunningProxy implements AutoCloseable {
    /** Advertise mode ports without a base given: this many broker ports, from a free block. */
    private static final int DEFAULT_BROKER_PORTS = 16;
    /**
     * The TLS provider every proxy of the run uses: {@code openssl} unless the run says otherwise,
     * so a BoringSSL that stopped loading fails start-up instead of passing on the JDK; proxy-it's
     * second surefire execution runs the tests tagged {@value #TLS_TAG} again with {@code jdk}.
     */
    static final String TLS_PROVIDER = System.getProperty("kafscale.it.tlsProvider", "openssl");
    /** The tag of the tests that run on both TLS providers. */
    static final String TLS_TAG = "tls";
    private final ProxyRuntime runtime;

    private RunningProxy(ProxyRuntime runtime) {
        this.runtime = runtime;
    }

    static RunningProxy start(KafkaCluster cluster, String advertiseMode) {
        return start(cluster, advertiseMode, Map.of());
    }

    /** A proxy whose topology comes from KafScale's etcd keys (published by the test). */
    static RunningProxy startOnEtcd(KafkaCluster cluster, String advertiseMode, String etcdEndpoint) {
        return start(cluster, advertiseMode, Map.of(ProxyConfig.BACKENDS, "", ProxyConfig.ETCD_ENDPOINTS, etcdEndpoint,
                ProxyConfig.ETCD_RESYNC_MS, "500"));
    }

    static RunningProxy start(KafkaCluster cluster, String advertiseMode, Map<String, String> extra) {
        return start(cluster, advertiseMode, extra, UnaryOperator.identity());
    }

    /** A proxy whose per-connection handlers {@code aroundHandlers} wraps (see {@link ProxyRuntime#start}). */
    static RunningProxy start(KafkaCluster cluster, String advertiseMode, Map<String, String> extra,
                              UnaryOperator<RequestHandlers> aroundHandlers) {
        try {
            return new RunningProxy(ProxyRuntime.start(ProxyConfig.from(settings(cluster, advertiseMode, extra)),
                    aroundHandlers));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A proxy that reloads its configuration live: from these settings (where a blank value lets
     * the file's through) and the {@code --config} file {@code configFile}, as the process would be
     * started with them.
     */
    static RunningProxy startReloadable(KafkaCluster cluster, String advertiseMode, Map<String, String> extra,
                                        Path configFile) {
        ConfigInputs inputs = new ConfigInputs(Optional.of(configFile), settings(cluster, advertiseMode, extra),
                Map.of());
        Map<String, String> merged = inputs.resolve();
        try {
            return new RunningProxy(ProxyRuntime.start(inputs, merged, ProxyConfig.from(merged)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The settings of a test's proxy in front of {@code cluster}, with {@code extra} over them. */
    private static Map<String, String> settings(KafkaCluster cluster, String advertiseMode, Map<String, String> extra) {
        int port = FreePorts.next();
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.ADDR, "127.0.0.1:" + port);
        env.put(ProxyConfig.ADVERTISED_HOST, "127.0.0.1");
        env.put(ProxyConfig.ADVERTISE_MODE, advertiseMode);
        env.put(ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + FreePorts.next());
        env.put(ProxyConfig.BACKENDS, cluster.bootstrapServers());
        env.put(ProxyConfig.METADATA_REFRESH_MS, "1000");
        // Tests wait for /readyz; a short probe interval keeps them quick.
        env.put(ProxyConfig.READY_PROBE_INTERVAL_MS, "300");
        env.put(ProxyConfig.TLS_PROVIDER, TLS_PROVIDER);
        if ("ports".equals(advertiseMode)) {
            // A port per broker id: ids below 16 (the test clusters' ids start at 0), on free ports.
            env.put(ProxyConfig.BROKER_PORT_BASE, String.valueOf(FreePorts.block(DEFAULT_BROKER_PORTS)));
            env.put(ProxyConfig.BROKER_PORT_COUNT, String.valueOf(DEFAULT_BROKER_PORTS));
        }
        env.putAll(extra);
        return env;
    }

    /**
     * A proxy listening on {@code port}, typically the port of a proxy that was just closed, so
     * clients that know the old address reach the new proxy.
     */
    static RunningProxy startOnPort(KafkaCluster cluster, String advertiseMode, int port) {
        return start(cluster, advertiseMode, Map.of(ProxyConfig.ADDR, "127.0.0.1:" + port));
    }

    /** The Kafka listener's port. */
    int kafkaPort() {
        return runtime.kafkaAddress().getPort();
    }

    /** What clients put in bootstrap.servers. */
    String bootstrap() {
        return "127.0.0.1:" + kafkaPort();
    }

    int port() {
        return runtime.kafkaAddress().getPort();
    }

    String healthUrl(String path) {
        return "http://127.0.0.1:" + runtime.healthAddress().orElseThrow().getPort() + path;
    }

    /** GET on the health listener; the status code and body. */
    HttpResponse<String> health(String path) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(healthUrl(path))).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("health request " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    int healthStatus(String path) {
        return health(path).statusCode();
    }

    String healthBody(String path) {
        return health(path).body();
    }

    /** The value of the first {@code /metrics} sample whose line starts with {@code prefix} (name, or name and first labels). */
    double metric(String prefix) {
        return metricValue(healthBody("/metrics"), prefix);
    }

    /** LFS on, its HTTP API on a free port, objects in {@code bucket} of {@code s3}, plus {@code extra}. */
    static Map<String, String> lfsOn(S3Server s3, String bucket, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of(
                LfsConfig.LFS_ENABLED, "true",
                LfsConfig.HTTP_ADDR, "127.0.0.1:" + FreePorts.next(),
                LfsConfig.S3_BUCKET, bucket,
                LfsConfig.S3_REGION, "us-east-1",
                LfsConfig.S3_ENDPOINT, s3.endpoint().toString(),
                LfsConfig.S3_ACCESS_KEY, s3.accessKey(),
                LfsConfig.S3_SECRET_KEY, s3.secretKey()));
        settings.putAll(extra);
        return settings;
    }

    /** The value of the first sample in {@code metrics} whose line starts with {@code prefix}. */
    static double metricValue(String metrics, String prefix) {
        return metrics.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .orElseThrow(() -> new AssertionError("no series " + prefix + " in:\n" + metrics));
    }

    /** How many nodes a plaintext admin client sees through the proxy, asking with {@code timeout}. */
    int describeClusterNodes(Duration timeout) throws Exception {
        Map<String, Object> config = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try (Admin admin = Admin.create(config)) {
            return admin.describeCluster().nodes().get(2 * timeout.toMillis(),
                    TimeUnit.MILLISECONDS).size();
        }
    }

    ProxyRuntime runtime() {
        return runtime;
    }

    String lfsUrl(String path) {
        return "http://127.0.0.1:" + runtime.lfsAddress().orElseThrow().getPort() + path;
    }

    @Override
    public void close() {
        runtime.close();
    }
}
