package org.kafscale.proxy.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The librdkafka that scripts/ensure-librdkafka.sh builds, and the one place that puts it under
 * the librdkafka clients the tests start (kcat, confluent-kafka on Debian's Python).
 *
 * <p>Debian's librdkafka 2.0.2 sends a wrong SCRAM nonce that Kafka 4, and so the proxy, refuses
 * (fixed in 2.6.1), and has no OIDC token client. The build keeps soname librdkafka.so.1, so
 * Debian's kcat and confluent-kafka run on it through {@code LD_LIBRARY_PATH}. When the build is
 * missing the clients run on Debian's library, and tests that need the newer one skip.
 */
public final class Librdkafka {

    /** Must match LIBRDKAFKA_VERSION in scripts/ensure-librdkafka.sh. */
    public static final String VERSION = "2.12.0";
    /** Must match TARGET in scripts/ensure-librdkafka.sh. */
    private static final String DIR_VARIABLE = "KAFSCALE_LIBRDKAFKA_DIR";
    private static final String LIBRARY = "librdkafka.so.1";

    private Librdkafka() {
    }

    /** The folder holding the built library, if the script finished a build (it writes the stamp last). */
    public static Optional<Path> libraryDir() {
        Path dir = buildDir();
        Path lib = dir.resolve("lib");
        return Files.isRegularFile(lib.resolve(LIBRARY)) && Files.isRegularFile(dir.resolve(".stamp"))
                ? Optional.of(lib) : Optional.empty();
    }

    /**
     * What a librdkafka client's process needs in its environment to load the built library:
     * {@code LD_LIBRARY_PATH} with its folder first. Empty when there is no build.
     */
    public static Map<String, String> environment() {
        return libraryDir().map(lib -> {
            String inherited = System.getenv("LD_LIBRARY_PATH");
            String path = inherited == null || inherited.isEmpty() ? lib.toString() : lib + ":" + inherited;
            return Map.of("LD_LIBRARY_PATH", path);
        }).orElse(Map.of());
    }

    /** For a test's skip message: why its client is not on this library. */
    public static String whyAbsent() {
        return "librdkafka " + VERSION + " is not built in " + buildDir()
                + " (scripts/ensure-librdkafka.sh, run by scripts/ensure-test-tools.sh, builds it; see its output)";
    }

    private static Path buildDir() {
        String configured = System.getenv(DIR_VARIABLE);
        return configured != null && !configured.isEmpty() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "kafscale-proxy", "librdkafka-" + VERSION);
    }
}
