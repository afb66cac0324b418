package org.kafscale.proxy.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the repository that the deployment checks read, found from the module's directory. */
public final class RepoPaths {
    private RepoPaths() {
    }

    /** The repository root: the directory above this module (surefire runs in the module). */
    public static Path root() {
        Path root = Path.of("").toAbsolutePath().getParent();
        if (!Files.isRegularFile(root.resolve("mvnw"))) {
            throw new IllegalStateException("Not the repository root: " + root);
        }
        return root;
    }

    public static Path chart() {
        return root().resolve("helm").resolve("kafscale-proxy");
    }

    public static Path dockerfile() {
        return root().resolve("Dockerfile");
    }
}
