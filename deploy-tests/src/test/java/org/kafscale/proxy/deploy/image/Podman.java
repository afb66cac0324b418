package org.kafscale.proxy.deploy.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The podman command line with the containers.conf scripts/image.sh wrote (runc, no default
 * ulimits: docs/testing.md says why), each call under a deadline so a hung podman fails the test
 * with what it printed instead of hanging the build.
 */
final class Podman {
    private final Path containersConf;

    Podman(Path containersConf) {
        this.containersConf = containersConf;
    }

    record Result(List<String> command, int exitCode, String stdout, String stderr) {
        /** The output, or an error naming the command and what it printed when it failed. */
        String expectSuccess() {
            if (exitCode != 0) {
                throw new AssertionError(String.join(" ", command) + " exited " + exitCode + "\nstdout: " + stdout
                        + "\nstderr: " + stderr);
            }
            return stdout.strip();
        }
    }

    Result run(Duration deadline, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add("podman");
        command.addAll(args);
        return execute(command, Map.of("CONTAINERS_CONF", containersConf.toString()), deadline);
    }

    Result run(Duration deadline, String... args) {
        return run(deadline, List.of(args));
    }

    /** Runs {@code command} with {@code env} added to this JVM's environment. */
    static Result execute(List<String> command, Map<String, String> env, Duration deadline) {
        try {
            // Files, not pipes: nothing to drain while waiting, and a child that keeps a pipe open
            // (podman's conmon) cannot hold the test up.
            Path out = Files.createTempFile("podman", ".out");
            Path err = Files.createTempFile("podman", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile())
                        .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
                builder.environment().putAll(env);
                Process process = builder.start();
                if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    throw new AssertionError(String.join(" ", command) + " did not finish within " + deadline
                            + "\nstdout: " + Files.readString(out) + "\nstderr: " + Files.readString(err));
                }
                return new Result(command, process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }
}
