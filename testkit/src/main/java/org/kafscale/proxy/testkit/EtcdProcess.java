package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-member etcd server (the Debian etcd-server binary) on free loopback ports.
 *
 * <p>{@link #stop()} and {@link #start()} keep the ports and the data directory, so a test can
 * show that clients survive an etcd restart and that the data is still there afterwards.
 * Output goes to {@code target/etcd/etcd-<port>.log} so a failing test can be diagnosed.
 */
public final class EtcdProcess implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(EtcdProcess.class);
    private static final String HOW_TO_INSTALL = "run scripts/ensure-test-tools.sh or apt-get install etcd-server";
    private static final String MEMBER_NAME = "testkit";
    private static final Duration READY_DEADLINE = Duration.ofSeconds(30);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(10);
    private static final int START_ATTEMPTS = 3;
    private static final String WATCHER_GAUGE = "etcd_debugging_mvcc_watcher_total";

    private final Path binary;
    private final int clientPort;
    private final int peerPort;
    private final Path dataDir;
    private final Path logFile;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    /** Kills etcd if the test JVM exits without close(): the JVM does not end its child processes. */
    private final Thread killOnExit = new Thread(this::killIfRunning, "etcd-kill-on-exit");
    private volatile Process process;

    private EtcdProcess(Path binary, int clientPort, int peerPort, Path dataDir, Path logFile) {
        this.binary = binary;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.dataDir = dataDir;
        this.logFile = logFile;
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts a new etcd with an empty data directory and returns once it reports healthy.
     * (Named apart from {@link #start()}, which restarts this instance.)
     *
     * @throws IllegalStateException if the etcd binary is not installed or does not become healthy
     */
    public static EtcdProcess startNew() {
        Path binary = Executables.require("etcd", HOW_TO_INSTALL);
        IllegalStateException lastFailure = null;
        // The ports were free when chosen but etcd binds them a moment later; another process
        // (a parallel test JVM) may win that race, so a failed first start is retried on new ports.
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            EtcdProcess etcd = prepare(binary);
            try {
                etcd.spawn();
                return etcd;
            } catch (IllegalStateException e) {
                etcd.close();
                lastFailure = e;
                LOGGER.warn("etcd start attempt {} of {} failed: {}", attempt, START_ATTEMPTS, e.getMessage());
            } catch (RuntimeException | Error e) {
                etcd.close();
                throw e;
            }
        }
        throw lastFailure;
    }

    private static EtcdProcess prepare(Path binary) {
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        try {
            Path dataDir = Files.createTempDirectory("testkit-etcd-");
            // Surefire sets basedir to the module directory; an IDE usually runs from there too.
            Path logDir = Files.createDirectories(Path.of(System.getProperty("basedir", "."), "target", "etcd"));
            return new EtcdProcess(binary, clientPort, peerPort, dataDir, logDir.resolve("etcd-" + clientPort + ".log"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare etcd directories", e);
        }
    }

    /** The client URL, e.g. {@code http://127.0.0.1:40123}, as jetcd expects it (with scheme). */
    public String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    public Path logFile() {
        return logFile;
    }

    /**
     * How many watchers etcd is serving now (its {@code etcd_debugging_mvcc_watcher_total} gauge).
     * A client's watch is asked for at once but opened on the server a moment later; a test that
     * breaks watches by stopping etcd waits for them here first, or it stops an etcd that never
     * had them and the client simply waits for it to return.
     */
    public int watchers() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint() + "/metrics"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        try {
            String metrics = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
            return metrics.lines().filter(line -> line.startsWith(WATCHER_GAUGE + " "))
                    .mapToInt(line -> (int) Double.parseDouble(line.substring(WATCHER_GAUGE.length() + 1).trim()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("etcd at " + endpoint() + " has no " + WATCHER_GAUGE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read etcd's metrics at " + endpoint(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading etcd's metrics", e);
        }
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Starts etcd again on the same ports and data directory after {@link #stop()}. */
    public synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException("etcd is already running at " + endpoint());
        }
        spawn();
    }

    /** Sends SIGTERM and waits for etcd to exit (SIGKILL if it does not). */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                LOGGER.warn("etcd at {} ignored SIGTERM for {}; killing it", endpoint(), STOP_DEADLINE);
                process.destroyForcibly().waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** Stops etcd and deletes its data directory; the log file stays for diagnosis. */
    @Override
    public synchronized void close() {
        stop();
        TempDirs.deleteRecursively(dataDir);
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; the hook runs and finds nothing to kill.
        }
    }

    /** Not synchronized: a shutdown hook must not wait for a test thread that holds the lock. */
    private void killIfRunning() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
        }
    }

    private synchronized void spawn() {
        List<String> command = List.of(binary.toString(),
                "--name", MEMBER_NAME,
                "--data-dir", dataDir.resolve("data").toString(),
                "--listen-client-urls", endpoint(),
                "--advertise-client-urls", endpoint(),
                "--listen-peer-urls", peerUrl(),
                "--initial-advertise-peer-urls", peerUrl(),
                "--initial-cluster", MEMBER_NAME + "=" + peerUrl(),
                "--logger", "zap",
                "--log-level", "warn");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        // An ETCD_* variable in the developer's shell would silently change this server's setup.
        builder.environment().keySet().removeIf(name -> name.startsWith("ETCD_"));
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        awaitHealthy();
        LOGGER.info("etcd ready at {} (log {})", endpoint(), logFile.toAbsolutePath());
    }

    private void awaitHealthy() {
        Process started = process;
        try {
            // A crashed etcd ends the wait at once instead of at the deadline.
            Eventually.await(READY_DEADLINE, "etcd at " + endpoint() + " to report healthy",
                    () -> !started.isAlive() || isHealthy());
        } catch (AssertionError e) {
            stop();
            throw new IllegalStateException(e.getMessage() + "\n" + logTail(), e);
        }
        if (!started.isAlive()) {
            process = null;
            throw new IllegalStateException("etcd exited with code " + started.exitValue() + ":\n" + logTail());
        }
    }

    private boolean isHealthy() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint() + "/health"))
                .timeout(Duration.ofSeconds(1)).GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains("\"health\":\"true\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String peerUrl() {
        return "http://127.0.0.1:" + peerPort;
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "<cannot read " + logFile + ": " + e + ">";
        }
    }
}
