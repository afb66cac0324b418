package org.kafscale.proxy.core.audit;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of the audit trail: when, what kind, who (the {@link Subject}) and the kind's own
 * fields. {@link AuditJson} writes it as one JSON line of schema {@link AuditJson#SCHEMA}
 * (docs/governance.md lists every field). Made on the connection's event loop, written by the
 * sinks' threads: immutable.
 *
 * @param time when the proxy saw it happen
 * @param type {@code authentication}, {@code authorization_denied}, {@code admin} or {@code lfs}
 * @param subject who did it
 * @param fields the type's fields, in the order they are written; values are strings, numbers,
 *               booleans, lists and maps of those
 */
public record AuditEvent(Instant time, String type, Subject subject, Map<String, Object> fields) {
    public static final String AUTHENTICATION = "authentication";
    public static final String AUTHORIZATION_DENIED = "authorization_denied";
    public static final String ADMIN = "admin";
    public static final String LFS = "lfs";

    public AuditEvent {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(subject, "subject");
        fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /**
     * Who an event is about.
     *
     * @param connection the connection's id as its log lines carry it; null for LFS (HTTP)
     * @param clientAddress the client's address: a PROXY protocol header's source when there was one
     * @param principal {@code User:alice}; for a failed login the name it claimed, or null when
     *                  none could be read
     * @param virtualCluster the principal's virtual cluster, or null outside any
     */
    public record Subject(String connection, String clientAddress, String principal, String virtualCluster) {
        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            putIfSet(map, "connection", connection);
            putIfSet(map, "clientAddress", clientAddress);
            putIfSet(map, "principal", principal);
            putIfSet(map, "virtualCluster", virtualCluster);
            return map;
        }
    }

    /** An address as {@code host:port} (the IP, never a reverse lookup), or its string form. */
    public static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            String host = inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return address == null ? null : address.toString();
    }

    /**
     * A login that succeeded or failed.
     *
     * @param outcome {@code succeeded}, {@code reauthenticated}, {@code failed} or {@code refused}
     * @param reason why it failed, in the words the proxy logs; null when it succeeded
     */
    public static AuditEvent authentication(Instant time, Subject subject, String mechanism, String outcome,
                                            String reason) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("mechanism", mechanism);
        fields.put("outcome", outcome);
        putIfSet(fields, "reason", reason);
        return new AuditEvent(time, AUTHENTICATION, subject, fields);
    }

    /** Resources of one request that the ACLs refused, each with its operation. */
    public static AuditEvent denied(Instant time, Subject subject, String api, List<Denial> denials) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("api", api);
        fields.put("denied", denials.stream().map(Denial::toMap).toList());
        return new AuditEvent(time, AUTHORIZATION_DENIED, subject, fields);
    }

    /**
     * A mutating call and how it ended.
     *
     * @param outcome {@code succeeded} (every resource answered NONE), {@code failed} (none did),
     *                {@code partial}, or {@code unanswered} (the connection closed first)
     */
    public static AuditEvent admin(Instant time, Subject subject, String api, short version,
                                   List<Map<String, Object>> resources, String outcome) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("api", api);
        fields.put("apiVersion", version);
        fields.put("resources", resources);
        fields.put("outcome", outcome);
        return new AuditEvent(time, ADMIN, subject, fields);
    }

    /**
     * An LFS upload or download.
     *
     * @param action {@code upload} or {@code download}
     * @param object where the payload is: bucket and key
     * @param outcome {@code succeeded} or {@code failed}
     * @param detail the topic (upload) or the error code (a failure); may be empty
     */
    public static AuditEvent lfs(Instant time, Subject subject, String action, String bucket, String key,
                                 String outcome, Map<String, Object> detail) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("action", action);
        Map<String, Object> object = new LinkedHashMap<>();
        putIfSet(object, "bucket", bucket);
        putIfSet(object, "key", key);
        fields.put("object", object);
        fields.put("outcome", outcome);
        fields.putAll(detail);
        return new AuditEvent(time, LFS, subject, fields);
    }

    /**
     * One refused resource.
     *
     * @param resourceType Kafka's name of its type ({@code TOPIC}, {@code GROUP}, ...)
     * @param name its name; for a topic given by an id the topology does not know, the id
     * @param operation the operation refused ({@code WRITE}, {@code ALTER_CONFIGS}, ...)
     */
    public record Denial(String resourceType, String name, String operation) {
        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("resourceType", resourceType);
            putIfSet(map, "name", name);
            map.put("operation", operation);
            return map;
        }
    }

    static void putIfSet(Map<String, Object> map, String key, Object value) {
        if (value != null) {
            map.put(key, value);
        }
    }
}
