package org.kafscale.proxy.bench.proxy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.testkit.FreePorts;

/**
 * The proxy under test: {@code org.kafscale.proxy.app.Main} in its own JVM, configured only
 * through KafScale's environment variables, as an operator would run it.
 */
public final class ProxyProcess implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final String MAIN = "org.kafscale.proxy.app.Main";

    private final String mode;
    private final ChildJvm jvm;
    private final String bootstrap;
    private final URI health;
    private final URI lfs;

    private ProxyProcess(String mode, ChildJvm jvm, String bootstrap, URI health, URI lfs) {
        this.mode = mode;
        this.jvm = jvm;
        this.bootstrap = bootstrap;
        this.health = health;
        this.lfs = lfs;
    }

    /**
     * Starts a proxy in front of {@code backends} and returns once {@code /readyz} answers 200.
     *
     * @param advertiseMode {@code single}, {@code brokers} or {@code ports} (broker N on a port of
     *                      its own, base + N; see {@link #rejects})
     * @param s3 where the LFS module (when this build has one) stores payloads
     * @param jvmOptions extra options for the proxy's JVM (a JFR recording, say); {@code {mode}} in
     *                   them becomes the advertise mode, so that each proxy writes its own file
     */
    public static ProxyProcess start(String advertiseMode, String backends, S3Target s3, List<String> jvmOptions,
                                     Path logDir) throws IOException, InterruptedException {
        return start(advertiseMode, backends, s3, jvmOptions, Map.of(), logDir);
    }

    /** Like {@link #start(String, String, S3Target, List, Path)}, with more settings ({@code KAFSCALE_*}). */
    public static ProxyProcess start(String advertiseMode, String backends, S3Target s3, List<String> jvmOptions,
                                     Map<String, String> moreSettings, Path logDir)
            throws IOException, InterruptedException {
        return start(advertiseMode, backends, s3, jvmOptions, moreSettings, Ports.free(), "proxy-" + advertiseMode,
                logDir);
    }

    /** The ports a proxy listens on; a replica restarted on the same ones is the same address to its clients. */
    public record Ports(int kafka, int health, int lfs) {
        public static Ports free() {
            return new Ports(FreePorts.next(), FreePorts.next(), FreePorts.next());
        }
    }

    /**
     * Like {@link #start(String, String, S3Target, List, Map, Path)}, on the given ports, logging to
     * {@code <name>.log} (appended to, so that a restarted replica keeps one log); {@code -Xmx1g}
     * unless {@code jvmOptions} name a heap.
     */
    public static ProxyProcess start(String advertiseMode, String backends, S3Target s3, List<String> jvmOptions,
                                     Map<String, String> moreSettings, Ports ports, String name, Path logDir)
            throws IOException, InterruptedException {
        return start(advertiseMode, backends, s3, jvmOptions, moreSettings, ports, name, logDir,
                System.getProperty("java.class.path"));
    }

    /**
     * Like {@link #start(String, String, S3Target, List, Map, Ports, String, Path)}, the proxy run
     * from {@code classpath} instead of the benchmark's own: another build of it, to compare two
     * builds in one run (BuildComparisonMain).
     */
    public static ProxyProcess start(String advertiseMode, String backends, S3Target s3, List<String> jvmOptions,
                                     Map<String, String> moreSettings, Ports ports, String name, Path logDir,
                                     String classpath) throws IOException, InterruptedException {
        int kafkaPort = ports.kafka();
        int healthPort = ports.health();
        int lfsPort = ports.lfs();
        Map<String, String> env = settings(advertiseMode, backends, kafkaPort, healthPort);
        env.putAll(s3.lfsSettings("127.0.0.1:" + lfsPort));
        env.putAll(moreSettings); // last, so that a caller may turn LFS off
        List<String> options = new ArrayList<>();
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-Xmx"))) {
            options.add("-Xmx1g");
        }
        options.add("-XX:+UseG1GC");
        jvmOptions.forEach(option -> options.add(option.replace("{mode}", advertiseMode)));
        ChildJvm jvm = ChildJvm.start(name, options, classpath, MAIN, List.of(), env,
                logDir.resolve(name + ".log"), line -> line.contains("Proxy serving on"), false);
        jvm.awaitLine(START_DEADLINE);
        ProxyProcess proxy = new ProxyProcess(advertiseMode, jvm, "127.0.0.1:" + kafkaPort,
                URI.create("http://127.0.0.1:" + healthPort), URI.create("http://127.0.0.1:" + lfsPort));
        proxy.awaitReady();
        return proxy;
    }

    /**
     * Why this build's proxy would refuse to start in {@code advertiseMode}, asked of its own
     * configuration parser with the settings {@link #start} gives it; empty when it accepts them.
     * The bench runs the {@code ports} route only on a build that has that mode.
     */
    public static Optional<String> rejects(String advertiseMode, String backends) {
        try {
            ProxyConfig.from(settings(advertiseMode, backends, FreePorts.next(), FreePorts.next()));
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    private static Map<String, String> settings(String advertiseMode, String backends, int kafkaPort, int healthPort) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFSCALE_PROXY_ADDR", "127.0.0.1:" + kafkaPort);
        env.put("KAFSCALE_PROXY_ADVERTISED_HOST", "127.0.0.1");
        env.put("KAFSCALE_PROXY_ADVERTISE_MODE", advertiseMode);
        env.put("KAFSCALE_PROXY_BACKENDS", backends);
        env.put("KAFSCALE_PROXY_HEALTH_ADDR", "127.0.0.1:" + healthPort);
        if (advertiseMode.equals("ports")) {
            // Broker id N (0..BROKERS-1) on base + N: as many ports as the cluster has brokers,
            // not the default 64, so that the bench needs only a short run of free ports.
            env.put("KAFSCALE_PROXY_BROKER_PORT_BASE", Integer.toString(PortBlock.free(ClusterMain.BROKERS)));
            env.put("KAFSCALE_PROXY_BROKER_PORT_COUNT", Integer.toString(ClusterMain.BROKERS));
        }
        return env;
    }

    public String mode() {
        return mode;
    }

    public String bootstrap() {
        return bootstrap;
    }

    public long pid() {
        return jvm.pid();
    }

    /** The proxy's Prometheus endpoint. */
    public URI metrics() {
        return health.resolve("/metrics");
    }

    /** Where the LFS HTTP API listens if this build has one. */
    public URI lfs() {
        return lfs;
    }

    private void awaitReady() throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(health.resolve("/readyz")).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        close();
        throw new IllegalStateException("proxy (" + mode + ") not ready within " + START_DEADLINE);
    }

    @Override
    public void close() {
        jvm.close();
    }
}
