package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GatewayAuditTest {
    private static Gateway gateway(String yaml) {
        return GatewayFile.parse("gateway.yaml", yaml.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String yaml) {
        return assertThrows(ConfigException.class, () -> gateway(yaml)).getMessage();
    }

    @Test
    void anAuditTrailAloneNeedsNoVirtualClustersAndGetsTheDefaults() {
        Gateway gateway = gateway("audit:\n  file: /var/log/audit.jsonl\n");

        AuditSettings audit = gateway.audit().orElseThrow();
        assertTrue(gateway.virtualClusters().isEmpty());
        assertEquals(Optional.of(Path.of("/var/log/audit.jsonl")), audit.file());
        assertEquals(AuditSettings.DEFAULT_MAX_FILE_BYTES, audit.maxFileBytes());
        assertEquals(AuditSettings.DEFAULT_MAX_FILES, audit.maxFiles());
        assertEquals(AuditSettings.DEFAULT_QUEUE_CAPACITY, audit.queueCapacity());
        assertFalse(audit.stdout());
        assertFalse(audit.failClosed());
    }

    @Test
    void everyKeyIsRead() {
        AuditSettings audit = gateway("""
                virtualClusters:
                  - name: a
                    principals: [User:alice]
                audit:
                  file: audit.jsonl
                  maxFileBytes: 1000
                  maxFiles: 3
                  stdout: true
                  topic: _audit
                  queueCapacity: 50
                  failClosed: true
                """).audit().orElseThrow();

        assertEquals(new AuditSettings(Optional.of(Path.of("audit.jsonl")), 1000, 3, true, Optional.of("_audit"), 50,
                true), audit);
    }

    @Test
    void anAuditTrailAloneNeedsNoAuthenticationOnTheListener(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), "audit:\n  stdout: true\n");
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.GATEWAY_FILE, file.toString());

        ProxyConfig config = ProxyConfig.from(env);

        assertTrue(config.gateway().audit().orElseThrow().stdout());
        assertTrue(config.virtualClusters().isEmpty());
    }

    @Test
    void withoutTheSectionThereIsNoTrail() {
        assertTrue(gateway("virtualClusters:\n  - name: a\n    principals: [User:a]\n").audit().isEmpty());
    }

    @Test
    void eachProblemNamesItsPath() {
        assertTrue(error("audit:\n  stdout: false\n").contains("invalid at audit: no sink"));
        assertTrue(error("audit:\n  stdout: true\n  fiel: x\n").contains("invalid at audit.fiel: unknown key"));
        assertTrue(error("audit:\n  topic: 'bad topic'\n").contains("invalid at audit.topic"));
        assertTrue(error("audit:\n  file: a\n  maxFiles: 0\n").contains("invalid at audit.maxFiles: expected a whole"));
        assertTrue(error("audit:\n  file: a\n  maxFileBytes: 1.5\n").contains("invalid at audit.maxFileBytes"));
        assertTrue(error("audit:\n  stdout: true\n  queueCapacity: -1\n").contains("invalid at audit.queueCapacity"));
        assertTrue(error("audit:\n  stdout: 'yes'\n").contains("invalid at audit.stdout: expected true or false"));
        assertTrue(error("audit:\n  stdout: true\n  maxFiles: 2\n").contains("invalid at audit.maxFiles: only for a file"));
        assertTrue(error("audit: [file]\n").contains("invalid at audit: expected a map"));
        assertTrue(error("audits:\n  stdout: true\n").contains("invalid"));
    }
}
