package org.kafscale.proxy.deploy.image;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.kafscale.proxy.deploy.RepoPaths;

/**
 * The image as scripts/image.sh builds it on the Debian base (what CI uses): its name, id and
 * size, and the podman configuration to run it with. The script needs the jar of proxy-app's
 * package phase, which the reactor runs before this module's tests.
 */
record BuiltImage(String name, String id, long sizeBytes, Podman podman) {
    /** The script's exit status when podman, buildah, runc or mmdebstrap are missing and cannot be installed. */
    private static final int NO_TOOLS = 3;
    /** A fresh machine installs the tools and makes the Debian base first (minutes); a later run takes seconds. */
    private static final Duration DEADLINE = Duration.ofMinutes(15);

    /**
     * Builds the image named {@code tag}; skips the calling test (a JUnit assumption) when the
     * tools cannot be installed here, and fails it when the build itself fails.
     */
    static BuiltImage build(String tag) {
        Path jar = RepoPaths.root().resolve(Path.of("proxy-app", "target", "kafscale-proxy.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError(jar + " is missing: package proxy-app first (./mvnw -B -o package -pl proxy-app -am -DskipTests)");
        }
        Path script = RepoPaths.root().resolve(Path.of("scripts", "image.sh"));
        long started = System.nanoTime();
        Podman.Result built = Podman.execute(List.of("bash", script.toString(), "--debian-base", "--tag", tag),
                Map.of(), DEADLINE);
        Assumptions.assumeFalse(built.exitCode() == NO_TOOLS,
                () -> "no container tools here: " + built.stderr().strip());
        Map<String, String> summary = summary(built.expectSuccess());
        // The build's cost, for docs/testing.md: cold (tools, base) on a fresh machine, seconds after.
        System.out.printf("scripts/image.sh took %d s%n%s%n", Duration.ofNanos(System.nanoTime() - started).toSeconds(),
                built.stderr());
        return new BuiltImage(summary.get("image"), summary.get("id"),
                Long.parseLong(summary.get("size").split(" ")[0]),
                new Podman(Path.of(summary.get("containers.conf"))));
    }

    /** Removes the image (the Debian base stays, for the next run). */
    void remove() {
        podman.run(Duration.ofSeconds(60), "rmi", "--force", name);
    }

    /** The script's last lines, "name: value". */
    private static Map<String, String> summary(String stdout) {
        Map<String, String> summary = new HashMap<>();
        for (String line : stdout.lines().toList()) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                summary.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        for (String key : List.of("image", "id", "size", "containers.conf")) {
            if (!summary.containsKey(key)) {
                throw new AssertionError("scripts/image.sh printed no \"" + key + ":\" line:\n" + stdout);
            }
        }
        return summary;
    }
}
