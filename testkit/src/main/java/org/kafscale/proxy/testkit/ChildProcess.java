package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a native program to completion under a deadline and captures what it printed: a client
 * that cannot reach its broker may retry forever, and a test must fail with the output so far
 * rather than hang the build.
 */
final class ChildProcess {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChildProcess.class);

    /** What a run printed and how it ended. */
    record Output(int exitCode, String stdout, String stderr) {
    }

    private ChildProcess() {
    }

    /**
     * Runs {@code command} with {@code extraEnv} added to this JVM's environment, writing
     * {@code stdin} (may be null) to it.
     *
     * @throws IllegalStateException if it does not exit within {@code deadline}; the message
     *     carries what it printed until then
     */
    static Output run(List<String> command, Map<String, String> extraEnv, String stdin, Duration deadline) {
        LOGGER.debug("running {}", command);
        Process process = start(command, extraEnv);
        // Drain both pipes concurrently: a child blocked on a full pipe never exits.
        CompletableFuture<String> out = readAsync(process.getInputStream());
        CompletableFuture<String> err = readAsync(process.getErrorStream());
        writeStdin(process, stdin);
        try {
            if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException(command + " did not finish within " + deadline
                        + "\nstdout: " + collected(out) + "\nstderr: " + collected(err));
            }
            return new Output(process.exitValue(), out.get(5, TimeUnit.SECONDS), err.get(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the output of " + command, e);
        }
    }

    private static Process start(List<String> command, Map<String, String> extraEnv) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(extraEnv);
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    private static void writeStdin(Process process, String stdin) {
        try (OutputStream in = process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // The program exited early (bad arguments); its stderr says why, so let the caller see that.
            LOGGER.debug("child closed stdin early", e);
        }
    }

    /** Reads a pipe on its own daemon thread (the common pool has one thread on 2 cores). */
    private static CompletableFuture<String> readAsync(InputStream stream) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (stream) {
                result.complete(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                result.completeExceptionally(e);
            }
        }, "child-output-reader");
        reader.setDaemon(true);
        reader.start();
        return result;
    }

    private static String collected(CompletableFuture<String> output) {
        try {
            return output.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "<unavailable: " + e + ">";
        }
    }
}
