package org.kafscale.proxy.lfs.tracker;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * One ops event: the common fields ({@code event_type, event_id, timestamp, proxy_id,
 * request_id, version}) and the type's own fields, in the order KafScale writes them. Optional
 * fields given as zero or empty are left out (the {@code omitempty} of the original).
 *
 * @param kafkaKey the record key: the event's topic, or "" for download events
 * @param fields the JSON object, in order
 */
public record TrackerEvent(String kafkaKey, Map<String, Object> fields) {

    /** Starts an event of {@code type}; add its fields with {@link Builder}. */
    public static Builder builder(String type, String proxyId, String requestId) {
        return new Builder(type, proxyId, requestId);
    }

    public String type() {
        return (String) fields.get("event_type");
    }

    /**
     * This event with the {@code principal} field appended: who made the HTTP request it records
     * ({@code User:<certificate subject>} of a verified client certificate). Left out when the
     * request was anonymous; the API key, shared by every client, names no one and never appears.
     */
    public TrackerEvent by(Optional<String> principal) {
        if (principal.isEmpty() || principal.get().isEmpty()) {
            return this;
        }
        Map<String, Object> withPrincipal = new LinkedHashMap<>(fields);
        withPrincipal.put("principal", principal.get());
        return new TrackerEvent(kafkaKey, Collections.unmodifiableMap(withPrincipal));
    }

    /** Builds an event, keeping field order. */
    public static final class Builder {
        private final Map<String, Object> fields = new LinkedHashMap<>();
        private String kafkaKey = "";

        private Builder(String type, String proxyId, String requestId) {
            fields.put("event_type", type);
            fields.put("event_id", UUID.randomUUID().toString());
            fields.put("timestamp", Instant.now().toString());
            fields.put("proxy_id", proxyId);
            fields.put("request_id", requestId);
            fields.put("version", 1);
        }

        /** A field that is always written. */
        public Builder put(String name, Object value) {
            fields.put(name, value == null ? "" : value);
            return this;
        }

        /** A field left out when null, empty or zero. */
        public Builder optional(String name, Object value) {
            boolean empty = value == null
                    || value instanceof String s && s.isEmpty()
                    || value instanceof Number n && n.longValue() == 0 && n.doubleValue() == 0;
            if (!empty) {
                fields.put(name, value);
            }
            return this;
        }

        /** The event's topic, also the record key. */
        public Builder topic(String topic) {
            fields.put("topic", topic);
            kafkaKey = topic;
            return this;
        }

        public TrackerEvent build() {
            return new TrackerEvent(kafkaKey, Collections.unmodifiableMap(new LinkedHashMap<>(fields)));
        }
    }
}
