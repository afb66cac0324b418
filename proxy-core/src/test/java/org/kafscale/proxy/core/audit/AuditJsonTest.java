package org.kafscale.proxy.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuditJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant AT = Instant.parse("2026-12-07T10:15:30.123456Z");

    @Test
    void writesTheSchemaTheTimeTheTypeTheSubjectThenTheTypesFieldsOnOneLine() throws Exception {
        AuditEvent.Subject subject = new AuditEvent.Subject("c1f", "10.0.0.7:5555", "User:alice", "tenant-a");

        String line = AuditJson.encode(AuditEvent.authentication(AT, subject, "SCRAM-SHA-512", "failed",
                "bad password \"x\"\nsecond line"));

        assertFalse(line.contains("\n"), line);
        JsonNode event = JSON.readTree(line);
        assertEquals(List.of("schema", "time", "type", "connection", "clientAddress", "principal", "virtualCluster",
                "mechanism", "outcome", "reason"), names(event));
        assertEquals(1, event.get("schema").asInt());
        assertEquals("2026-12-07T10:15:30.123Z", event.get("time").asText());
        assertEquals("authentication", event.get("type").asText());
        assertEquals("User:alice", event.get("principal").asText());
        assertEquals("bad password \"x\"\nsecond line", event.get("reason").asText());
    }

    @Test
    void leavesOutWhatIsNotKnown() throws Exception {
        AuditEvent.Subject subject = new AuditEvent.Subject("c2", "127.0.0.1:1", null, null);

        JsonNode event = JSON.readTree(AuditJson.encode(AuditEvent.authentication(AT, subject, "PLAIN", "succeeded",
                null)));

        assertFalse(event.has("principal"));
        assertFalse(event.has("virtualCluster"));
        assertFalse(event.has("reason"));
    }

    @Test
    void writesDenialsAndAdminResourcesAsLists() throws Exception {
        AuditEvent.Subject subject = new AuditEvent.Subject("c3", "[::1]:9", "User:bob", null);

        JsonNode denied = JSON.readTree(AuditJson.encode(AuditEvent.denied(AT, subject, "Produce",
                List.of(new AuditEvent.Denial("TOPIC", "orders", "WRITE")))));
        JsonNode admin = JSON.readTree(AuditJson.encode(AuditEvent.admin(AT, subject, "CreateTopics", (short) 7,
                List.of(Map.of("resourceType", "topic", "name", "t", "error", "NONE")), "succeeded")));

        assertEquals("authorization_denied", denied.get("type").asText());
        assertEquals("WRITE", denied.get("denied").get(0).get("operation").asText());
        assertEquals("orders", denied.get("denied").get(0).get("name").asText());
        assertEquals("admin", admin.get("type").asText());
        assertEquals(7, admin.get("apiVersion").asInt());
        assertEquals("NONE", admin.get("resources").get(0).get("error").asText());
    }

    @Test
    void writesAddressesAsNumbersWithTheirPort() {
        assertEquals("10.1.2.3:9092", AuditEvent.address(new InetSocketAddress("10.1.2.3", 9092)));
        assertTrue(AuditEvent.address(new InetSocketAddress("::1", 7)).startsWith("["));
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
