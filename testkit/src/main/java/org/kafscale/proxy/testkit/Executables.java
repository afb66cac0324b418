package org.kafscale.proxy.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds native tools (etcd, kcat) that the tests start as processes. */
final class Executables {

    private Executables() {
    }

    /**
     * Looks for {@code name} on PATH, then in /usr/bin (Maven may run with a trimmed PATH).
     *
     * @throws IllegalStateException with {@code howToInstall} if the tool is nowhere to be found,
     *     so a missing package reads as a setup problem rather than an obscure IOException
     */
    static Path require(String name, String howToInstall) {
        return find(name).orElseThrow(() -> new IllegalStateException(name + " not found: " + howToInstall));
    }

    static Optional<Path> find(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        Path fallback = Path.of("/usr/bin", name);
        return Files.isExecutable(fallback) ? Optional.of(fallback) : Optional.empty();
    }
}
