package org.kafscale.proxy.core.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Writes an {@link AuditEvent} as one line of JSON: {@code schema}, {@code time} (UTC, ISO-8601,
 * milliseconds), {@code type}, the subject's fields, then the type's own. A reader checks
 * {@code schema} first: a field is only ever added within a schema, never renamed or removed.
 */
public final class AuditJson {
    /** The version of the event schema in docs/governance.md. */
    public static final int SCHEMA = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private AuditJson() {
    }

    /** The event as one line, without its line break. */
    public static String encode(AuditEvent event) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("schema", SCHEMA);
        node.put("time", DateTimeFormatter.ISO_INSTANT.format(event.time().truncatedTo(ChronoUnit.MILLIS)));
        node.put("type", event.type());
        node.setAll((ObjectNode) MAPPER.valueToTree(event.subject().toMap()));
        node.setAll((ObjectNode) MAPPER.valueToTree(event.fields()));
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            // Only strings, numbers, booleans, lists and maps go in: this cannot fail for an event made here.
            throw new IllegalStateException("an audit event could not be written as JSON", e);
        }
    }
}
