package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.internals.Topic;

/**
 * Reads the gateway file's {@code audit} section:
 * <pre>
 * audit:
 *   file: /var/log/kafscale/audit.jsonl   # a rolling file
 *   maxFileBytes: 104857600                # rolled at this size (default 100 MiB)
 *   maxFiles: 10                           # files kept, the one written included (default 10)
 *   stdout: true                           # standard output too
 *   topic: _kafscale_audit                 # a topic of the backend cluster, by the proxy's own producer
 *   queueCapacity: 10000                   # events queued per sink before new ones are dropped
 *   failClosed: false                      # refuse mutating calls while a sink is down
 * </pre>
 * At least one sink; each error names the path in the file.
 */
final class GatewayAudit {
    private static final Set<String> KEYS = Set.of("file", "maxFileBytes", "maxFiles", "stdout", "topic",
            "queueCapacity", "failClosed");

    private GatewayAudit() {
    }

    static Optional<AuditSettings> parse(String where, String path, JsonNode node) {
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isObject()) {
            throw invalid(where, path, "expected a map of " + keys());
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw invalid(where, path + "." + key, "unknown key (expected " + keys() + ")");
            }
        }
        Optional<Path> file = text(where, path + ".file", node.get("file")).map(Path::of);
        Optional<String> topic = text(where, path + ".topic", node.get("topic"));
        topic.ifPresent(name -> {
            try {
                Topic.validate(name);
            } catch (RuntimeException e) {
                throw invalid(where, path + ".topic", e.getMessage());
            }
        });
        boolean stdout = bool(where, path + ".stdout", node.get("stdout"));
        if (file.isEmpty() && topic.isEmpty() && !stdout) {
            throw invalid(where, path, "no sink: set file, topic or stdout: true");
        }
        long maxFileBytes = positive(where, path + ".maxFileBytes", node.get("maxFileBytes"),
                AuditSettings.DEFAULT_MAX_FILE_BYTES, Long.MAX_VALUE);
        int maxFiles = (int) positive(where, path + ".maxFiles", node.get("maxFiles"), AuditSettings.DEFAULT_MAX_FILES,
                1000);
        int queueCapacity = (int) positive(where, path + ".queueCapacity", node.get("queueCapacity"),
                AuditSettings.DEFAULT_QUEUE_CAPACITY, 10_000_000);
        if (file.isEmpty() && (node.has("maxFileBytes") || node.has("maxFiles"))) {
            throw invalid(where, path + (node.has("maxFiles") ? ".maxFiles" : ".maxFileBytes"),
                    "only for a file: set file too");
        }
        return Optional.of(new AuditSettings(file, maxFileBytes, maxFiles, stdout, topic, queueCapacity,
                bool(where, path + ".failClosed", node.get("failClosed"))));
    }

    private static Optional<String> text(String where, String path, JsonNode node) {
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw invalid(where, path, "expected a non-empty string");
        }
        return Optional.of(node.asText().strip());
    }

    private static boolean bool(String where, String path, JsonNode node) {
        if (node == null || node.isNull()) {
            return false;
        }
        if (!node.isBoolean()) {
            throw invalid(where, path, "expected true or false");
        }
        return node.asBoolean();
    }

    private static long positive(String where, String path, JsonNode node, long absent, long max) {
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 1 || node.asLong() > max) {
            throw invalid(where, path, "expected a whole number from 1 to " + max);
        }
        return node.asLong();
    }

    private static String keys() {
        return String.join(", ", KEYS.stream().sorted().toList());
    }

    private static ConfigException invalid(String where, String path, String problem) {
        return new ConfigException(where + " is invalid at " + path + ": " + problem);
    }
}
