package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * kafka-clients' internal packages (not public API: {@code MemoryRecords} moved from
 * {@code common.record} to {@code common.record.internal} between 4.0 and 4.3) are named only in
 * the codec package, so a Kafka upgrade touches one place. Scans the main sources of every proxy
 * module from the repository root, imports and fully qualified names alike.
 */
class KafkaInternalsConfinementTest {
    /** kafka-clients' packages that are not its public API. */
    private static final Pattern INTERNALS = Pattern.compile(
            "org\\.apache\\.kafka\\.common\\.(record\\.internal|requests|utils|compress|header\\.internals)\\.");
    private static final String CODEC = "proxy-core/src/main/java/org/kafscale/proxy/core/codec/";

    /**
     * The places outside the codec that may name them, and why: only the demo's embedded broker,
     * which is Kafka's own broker and takes its API as it is.
     */
    private static final Map<String, String> ALLOWED_OUTSIDE_THE_CODEC = Map.of(
            "proxy-demo/src/main/java/org/kafscale/proxy/demo/EmbeddedKafkaBroker.java",
            "embeds Kafka's own broker, whose constructor takes kafka-clients' clock (Time): that is the "
                    + "broker's API, which the demo follows at every Kafka version anyway");

    @Test
    void noMainSourceOutsideTheCodecNamesKafkaClientsInternals() {
        // Given every main source of the proxy modules
        Map<String, List<String>> uses = internalUses();

        // When the codec package and the allowed files are set aside
        List<String> stray = new ArrayList<>();
        uses.forEach((file, lines) -> {
            if (!file.startsWith(CODEC) && !ALLOWED_OUTSIDE_THE_CODEC.containsKey(file)) {
                lines.forEach(line -> stray.add(file + ": " + line));
            }
        });

        // Then nothing else names kafka-clients' internals
        assertEquals(List.of(), stray, "kafka-clients internals belong behind a helper in core.codec");
    }

    @Test
    void everyFileAllowedOutsideTheCodecStillNeedsToBe() {
        // Given the files allowed to name kafka-clients' internals
        Map<String, List<String>> uses = internalUses();

        // When each is looked up among the files that do
        List<String> stale = ALLOWED_OUTSIDE_THE_CODEC.keySet().stream().filter(file -> !uses.containsKey(file))
                .sorted().toList();

        // Then each still does: a file that has moved comes off the list
        assertEquals(List.of(), stale, "these files no longer name kafka-clients internals");
    }

    @Test
    void theScanFindsTheCodecsOwnUseOfKafkaClientsInternals() {
        // Given the codec package, which wraps kafka-clients' internals
        // When the proxy modules are scanned
        Map<String, List<String>> uses = internalUses();

        // Then the scan sees the codec's own uses (it reads the real sources, not an empty tree)
        assertTrue(uses.keySet().stream().anyMatch(file -> file.startsWith(CODEC)),
                "no codec file seen naming kafka-clients internals; scanned " + uses.keySet());
    }

    /** Lines that name an internal package, by file relative to the repository root. */
    private static Map<String, List<String>> internalUses() {
        Path root = repositoryRoot();
        Map<String, List<String>> uses = new TreeMap<>();
        for (Path file : mainSources(root)) {
            List<String> lines = lines(file).stream().filter(line -> INTERNALS.matcher(line).find())
                    .map(String::strip).toList();
            if (!lines.isEmpty()) {
                uses.put(root.relativize(file).toString().replace('\\', '/'), lines);
            }
        }
        return uses;
    }

    private static List<Path> mainSources(Path root) {
        try (Stream<Path> modules = Files.list(root)) {
            List<Path> sources = new ArrayList<>();
            for (Path module : modules.filter(m -> m.getFileName().toString().startsWith("proxy-")).sorted().toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main)) {
                    try (Stream<Path> files = Files.walk(main)) {
                        files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
                    }
                }
            }
            return sources;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first directory up from the working directory (a module's) that holds the reactor. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("proxy-core"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
