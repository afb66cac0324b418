package org.kafscale.proxy.app.reload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway file as written, section by section, for telling what a new version changes: its
 * virtual clusters by name, and its audit, validation and encryption sections. (What it means is
 * {@link org.kafscale.proxy.app.config.Gateway}; this is only for comparing.) Files the gateway
 * file names are not read: a change to an ACL file is followed by its own watcher.
 */
record GatewayTree(ObjectNode root) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final GatewayTree NONE = new GatewayTree(JsonNodeFactory.instance.objectNode());
    /** Sections read once at start (the audit trail's sinks): a change applies at the next start. */
    static final String AUDIT = "audit";
    static final String VALIDATION = "validation";
    static final String ENCRYPTION = "encryption";
    static final String LFS_RESOLVE = "lfsResolve";
    private static final String CLUSTERS = "virtualClusters";

    /** The file's tree; the file was just parsed by the configuration, so it is well-formed. */
    static GatewayTree parse(byte[] text) {
        try {
            JsonNode root = text.length == 0 ? null : YAML.readTree(text);
            return root instanceof ObjectNode object ? new GatewayTree(object) : NONE;
        } catch (IOException e) {
            throw new IllegalStateException("the gateway file no longer parses: " + e.getMessage(), e);
        }
    }

    /** A section ({@link #AUDIT}, {@link #VALIDATION}, {@link #ENCRYPTION}), or empty. */
    Optional<JsonNode> section(String name) {
        return Optional.ofNullable(root.get(name));
    }

    /** Each virtual cluster's entry, by its name, in the file's order. */
    Map<String, JsonNode> clusters() {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        root.path(CLUSTERS).forEach(entry -> byName.put(entry.path("name").asText(), entry));
        return byName;
    }

    /**
     * Whether a virtual cluster entry is placed where the socket is made (a listener of its own, a
     * TLS server name): its listener is bound at start, so any change to it applies at the next.
     */
    static boolean placedBySocket(JsonNode cluster) {
        return cluster != null && (cluster.has("listener") || cluster.has("sniHostSuffix"));
    }

    /**
     * This file less what only a restart applies, which stays as in {@code running}: the audit
     * section, and every virtual cluster placed by its socket (kept, not added, not removed).
     */
    GatewayTree keepingFixedFrom(GatewayTree running) {
        ObjectNode kept = root.deepCopy();
        kept.remove(AUDIT);
        running.section(AUDIT).ifPresent(audit -> kept.set(AUDIT, audit));
        ArrayNode clusters = JsonNodeFactory.instance.arrayNode();
        Map<String, JsonNode> before = running.clusters();
        clusters().forEach((name, entry) -> {
            if (!placedBySocket(entry) && !placedBySocket(before.get(name))) {
                clusters.add(entry);
            }
        });
        before.values().stream().filter(GatewayTree::placedBySocket).forEach(clusters::add);
        kept.remove(CLUSTERS);
        if (!clusters.isEmpty()) {
            kept.set(CLUSTERS, clusters);
        }
        return new GatewayTree(kept);
    }

    boolean isEmpty() {
        return root.isEmpty();
    }

    /** The tree as a file's text, for the configuration to read. */
    byte[] text() {
        try {
            return YAML.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
