package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.app.Main;
import org.kafscale.proxy.testkit.Eventually;

/**
 * The proxy's {@code main} in a JVM of its own, configured by environment variables as in a
 * container, for what only a real process shows: signals, exit, its log output. It uses the
 * production Logback configuration, not the tests' one.
 */
final class ProxyProcess implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);

    private final Process process;
    private final Path output;

    private ProxyProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    static ProxyProcess start(Map<String, String> env, String... jvmOptions) throws IOException {
        ProxyProcess proxy = launch(env, jvmOptions);
        Eventually.await(START_DEADLINE, "the proxy process to serve", () -> {
            if (!proxy.process.isAlive()) {
                throw new AssertionError("the proxy process exited:\n" + proxy.output());
            }
            return proxy.output().contains("Proxy serving on");
        });
        return proxy;
    }

    /**
     * Starts a proxy that must refuse to start: what it printed once it exited with status 1 (a
     * configuration error). Fails when it serves, or has not exited within the start deadline.
     */
    static String startRefused(Map<String, String> env, String... jvmOptions) throws IOException, InterruptedException {
        try (ProxyProcess proxy = launch(env, jvmOptions)) {
            if (!proxy.awaitExit(START_DEADLINE)) {
                throw new AssertionError("the proxy process did not exit:\n" + proxy.output());
            }
            if (proxy.process.exitValue() != 1) {
                throw new AssertionError("exit status " + proxy.process.exitValue() + ":\n" + proxy.output());
            }
            return proxy.output();
        }
    }

    private static ProxyProcess launch(Map<String, String> env, String... jvmOptions) throws IOException {
        Path output = Files.createTempFile("proxy-process", ".log");
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-Dlogback.configurationFile=logback.xml", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("KAFSCALE_"));
        builder.environment().putAll(env);
        return new ProxyProcess(builder.start(), output);
    }

    /** Sends SIGTERM, as Kubernetes does to stop a pod. */
    void terminate() {
        process.destroy();
    }

    /** Waits for the process to exit; false when it is still running after {@code deadline}. */
    boolean awaitExit(Duration deadline) throws InterruptedException {
        return process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit status of a process that has exited. */
    int exitCode() {
        return process.exitValue();
    }

    /** Everything the process printed so far. */
    String output() {
        try {
            return Files.readString(output);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(output);
    }
}
