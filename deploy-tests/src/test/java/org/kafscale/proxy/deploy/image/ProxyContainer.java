package org.kafscale.proxy.deploy.image;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The image run by podman the way a cluster runs it: as uid 10001, root filesystem read-only with
 * a tmpfs at /tmp, configured by environment only (no file mounted), on the host's network so it
 * reaches the test's brokers, etcd and S3 on loopback.
 */
final class ProxyContainer implements AutoCloseable {
    private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(60);

    private final Podman podman;
    private final String name;

    private ProxyContainer(Podman podman, String name) {
        this.podman = podman;
        this.name = name;
    }

    static ProxyContainer start(BuiltImage image, Map<String, String> env) {
        String name = "kafscale-proxy-image-it-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> run = new ArrayList<>(List.of("run", "--detach", "--name", name,
                "--user", "10001", "--read-only", "--tmpfs", "/tmp", "--network", "host"));
        env.forEach((key, value) -> run.addAll(List.of("--env", key + "=" + value)));
        run.add(image.name());
        image.podman().run(COMMAND_DEADLINE, run).expectSuccess();
        return new ProxyContainer(image.podman(), name);
    }

    String name() {
        return name;
    }

    /** Whether the container's process still runs. */
    boolean running() {
        return "true".equals(inspect("{{.State.Running}}"));
    }

    /** The image's HEALTHCHECK command, run inside the container now; its result. */
    Podman.Result healthcheck() {
        return podman.run(COMMAND_DEADLINE, "healthcheck", "run", name);
    }

    /** {@code podman stop}: SIGTERM, then SIGKILL after {@code timeout}; the process's exit code. */
    int stop(Duration timeout) {
        podman.run(timeout.plus(COMMAND_DEADLINE), "stop", "--time", Long.toString(timeout.toSeconds()), name)
                .expectSuccess();
        return Integer.parseInt(inspect("{{.State.ExitCode}}"));
    }

    /** What the process printed, stdout and stderr. */
    String logs() {
        Podman.Result logs = podman.run(COMMAND_DEADLINE, "logs", name);
        return logs.stdout() + logs.stderr();
    }

    private String inspect(String format) {
        return podman.run(COMMAND_DEADLINE, "container", "inspect", "--format", format, name).expectSuccess();
    }

    @Override
    public void close() {
        podman.run(COMMAND_DEADLINE, "rm", "--force", "--time", "0", name);
    }
}
