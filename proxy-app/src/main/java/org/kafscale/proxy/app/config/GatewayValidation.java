package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.kafscale.proxy.app.validation.AvroFormat;
import org.kafscale.proxy.app.validation.JsonFormat;
import org.kafscale.proxy.app.validation.JsonSchemaFormat;
import org.kafscale.proxy.app.validation.ProtobufFormat;
import org.kafscale.proxy.app.validation.RegistryFormat;
import org.kafscale.proxy.app.validation.SchemaRegistryClient;
import org.kafscale.proxy.core.validation.RecordFormat;
import org.kafscale.proxy.core.validation.ValidationRule;

/**
 * Reads a {@code validation} list of the gateway file (at its top, over real topic names, or in
 * a virtual cluster, over its own names):
 * <pre>
 * validation:
 *   - topics: "orders\\..*"                  # a regular expression over the whole topic name
 *     key: {format: json}
 *     value: {format: avro, schema: order.avsc}                     # or registry: http://registry:8081
 * </pre>
 * Each side has a {@code format} ({@code json}, {@code json-schema}, {@code avro}, {@code protobuf})
 * and, but for {@code json}, either a {@code schema} file (relative to the gateway file's folder)
 * or a {@code registry} URL; {@code protobuf} takes a descriptor set file and the {@code message}
 * type in it, not yet a registry. A schema file is read
 * and parsed here, so one that does not parse stops start-up naming its path in the file. One
 * registry client serves every rule that names the same URL.
 */
final class GatewayValidation {
    private static final Set<String> RULE_KEYS = Set.of("topics", "key", "value");
    private static final Set<String> SIDE_KEYS = Set.of("format", "schema", "registry", "message");
    private static final List<String> FORMATS = List.of("json", "json-schema", "avro", "protobuf");

    private GatewayValidation() {
    }

    /**
     * @param base the folder schema files are relative to
     * @param registries the registry clients made so far, by URL (shared across the file's rules)
     */
    static List<ValidationRule> parse(String where, String path, JsonNode node, Path base,
                                      Map<URI, SchemaRegistryClient> registries) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw invalid(where, path, "expected a list of rules ({topics: <regex>, key: {...}, value: {...}})");
        }
        List<ValidationRule> rules = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            rules.add(rule(where, path + "[" + i + "]", node.get(i), base, registries));
        }
        return rules;
    }

    private static ValidationRule rule(String where, String path, JsonNode node, Path base,
                                       Map<URI, SchemaRegistryClient> registries) {
        checkKeys(where, path, node, RULE_KEYS);
        JsonNode topics = node.get("topics");
        if (topics == null || !topics.isTextual() || topics.asText().isEmpty()) {
            throw invalid(where, path + ".topics", "required: a regular expression over topic names");
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(topics.asText());
        } catch (PatternSyntaxException e) {
            throw invalid(where, path + ".topics", "not a regular expression: " + e.getDescription());
        }
        RecordFormat key = side(where, path + ".key", node.get("key"), base, registries);
        RecordFormat value = side(where, path + ".value", node.get("value"), base, registries);
        if (key == null && value == null) {
            throw invalid(where, path, "a rule checks a key, a value or both: set key or value");
        }
        return new ValidationRule(pattern, key, value);
    }

    private static RecordFormat side(String where, String path, JsonNode node, Path base,
                                     Map<URI, SchemaRegistryClient> registries) {
        if (node == null || node.isNull()) {
            return null;
        }
        checkKeys(where, path, node, SIDE_KEYS);
        JsonNode format = node.get("format");
        if (format == null || !format.isTextual() || !FORMATS.contains(format.asText())) {
            throw invalid(where, path + ".format", "expected one of " + String.join(", ", FORMATS));
        }
        String name = format.asText();
        JsonNode schema = node.get("schema");
        JsonNode registry = node.get("registry");
        JsonNode message = node.get("message");
        if (name.equals("protobuf")) {
            return protobuf(where, path, schema, registry, message, base);
        }
        if (message != null) {
            throw invalid(where, path + ".message", "only format protobuf names a message type");
        }
        if (name.equals("json")) {
            if (schema != null || registry != null) {
                throw invalid(where, path + (schema != null ? ".schema" : ".registry"),
                        "format json checks well-formedness only; use format json-schema for a schema");
            }
            return new JsonFormat();
        }
        if ((schema == null) == (registry == null)) {
            throw invalid(where, path, "format " + name + " needs either schema (a file) or registry (a URL)");
        }
        if (registry != null) {
            URI url = registryUrl(where, path + ".registry", registry);
            SchemaRegistryClient client = registries.computeIfAbsent(url, SchemaRegistryClient::new);
            return new RegistryFormat(client, name.equals("avro") ? RegistryFormat.Kind.AVRO
                    : RegistryFormat.Kind.JSON_SCHEMA);
        }
        byte[] text = schemaFile(where, path + ".schema", schema, base);
        try {
            return name.equals("avro") ? AvroFormat.parse(new String(text, StandardCharsets.UTF_8))
                    : JsonSchemaFormat.parse(text);
        } catch (IllegalArgumentException e) {
            throw invalid(where, path + ".schema", "'" + schema.asText() + "' " + e.getMessage());
        }
    }

    /** Protobuf by a descriptor set file and the message type in it; not yet by registry. */
    private static RecordFormat protobuf(String where, String path, JsonNode schema, JsonNode registry,
                                         JsonNode message, Path base) {
        if (registry != null) {
            throw invalid(where, path + ".registry", "protobuf by registry is not supported yet by this version of "
                    + "the proxy; give schema (a descriptor set file) and message");
        }
        if (schema == null) {
            throw invalid(where, path, "format protobuf needs schema (a descriptor set file, protoc "
                    + "--include_imports --descriptor_set_out) and message");
        }
        if (message == null || !message.isTextual() || message.asText().isBlank()) {
            throw invalid(where, path + ".message", "required for format protobuf: the message type's full name");
        }
        byte[] set = schemaFile(where, path + ".schema", schema, base);
        try {
            return ProtobufFormat.parse(set, message.asText().strip());
        } catch (IllegalArgumentException e) {
            throw invalid(where, path + ".schema", "'" + schema.asText() + "' " + e.getMessage());
        }
    }

    private static URI registryUrl(String where, String path, JsonNode node) {
        if (!node.isTextual()) {
            throw invalid(where, path, "expected the registry's URL (http://host:8081)");
        }
        try {
            URI url = new URI(node.asText().strip());
            if (url.getHost() == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))) {
                throw invalid(where, path, "'" + node.asText() + "' is not an http(s) URL with a host");
            }
            return url;
        } catch (URISyntaxException e) {
            throw invalid(where, path, "'" + node.asText() + "' is not a URL: " + e.getReason());
        }
    }

    private static byte[] schemaFile(String where, String path, JsonNode node, Path base) {
        if (!node.isTextual() || node.asText().isBlank()) {
            throw invalid(where, path, "expected the path of a schema file");
        }
        Path file = base.resolve(node.asText().strip());
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw invalid(where, path, "'" + node.asText() + "' cannot be read: " + e.getMessage());
        }
    }

    private static void checkKeys(String where, String path, JsonNode node, Set<String> keys) {
        GatewayQuotas.checkKeys(where, path, node, keys);
    }

    private static ConfigException invalid(String where, String path, String problem) {
        return GatewayQuotas.invalid(where, path, problem);
    }
}
