package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.validation.AvroFormat;
import org.kafscale.proxy.app.validation.JsonFormat;
import org.kafscale.proxy.app.validation.JsonSchemaFormat;
import org.kafscale.proxy.app.validation.ProtobufFormat;
import org.kafscale.proxy.app.validation.RegistryFormat;
import org.kafscale.proxy.core.validation.ValidationRule;
import org.kafscale.proxy.core.validation.ValidationRules;

/** The gateway file's {@code validation} rules: what they read, and each mistake named by its path. */
class GatewayValidationTest {
    private static final String AVRO = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    @TempDir
    Path dir;

    private Gateway read(String yaml) throws Exception {
        return GatewayFile.read(Files.writeString(dir.resolve("gateway.yaml"), yaml));
    }

    private String error(String yaml) throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), yaml);
        return assertThrows(ConfigException.class, () -> GatewayFile.read(file)).getMessage();
    }

    @Test
    void aFileOfValidationAloneReadsEachRuleWithSchemaFilesBesideIt() throws Exception {
        Files.writeString(dir.resolve("order.avsc"), AVRO);
        Files.writeString(dir.resolve("order.schema.json"), "{\"type\":\"object\"}");
        Files.write(dir.resolve("shop.desc"), org.kafscale.proxy.app.validation.ProtobufFormatTest.descriptorSet());
        ValidationRules rules = read("""
                validation:
                  - topics: "orders\\\\..*"
                    key: {format: json}
                    value: {format: avro, schema: order.avsc}
                  - topics: "events"
                    value: {format: json-schema, schema: order.schema.json}
                  - topics: "registered\\\\..*"
                    value: {format: avro, registry: "http://registry:8081"}
                  - topics: "also-registered"
                    value: {format: json-schema, registry: "http://registry:8081"}
                  - topics: "proto"
                    value: {format: protobuf, schema: shop.desc, message: shop.Order}
                """).validation();
        assertTrue(rules.clusters().isEmpty());
        assertEquals(5, rules.global().size());
        assertInstanceOf(ProtobufFormat.class, rules.global().get(4).value());
        ValidationRule orders = rules.global().get(0);
        assertTrue(orders.topics().matcher("orders.eu").matches());
        assertInstanceOf(JsonFormat.class, orders.key());
        assertInstanceOf(AvroFormat.class, orders.value());
        assertNull(rules.global().get(1).key());
        assertInstanceOf(JsonSchemaFormat.class, rules.global().get(1).value());
        assertInstanceOf(RegistryFormat.class, rules.global().get(2).value());
        assertInstanceOf(RegistryFormat.class, rules.global().get(3).value());
    }

    @Test
    void aVirtualClusterHasRulesOfItsOwn() throws Exception {
        Gateway gateway = read("""
                virtualClusters:
                  - name: team-a
                    principals: [User:alice]
                    validation:
                      - topics: "orders"
                        value: {format: json}
                  - name: team-b
                    principals: [User:bob]
                """);
        assertTrue(gateway.validation().global().isEmpty());
        assertEquals(1, gateway.validation().byCluster().get("team-a").size());
        assertEquals(null, gateway.validation().byCluster().get("team-b"));
        assertSame(gateway.virtualClusters(), gateway.validation().clusters());
    }

    @Test
    void aFileWithoutValidationHasNoRules() throws Exception {
        assertTrue(read("virtualClusters:\n  - name: a\n    principals: [User:a]\n").validation().isEmpty());
    }

    @Test
    void eachMistakeNamesItsPath() throws Exception {
        Files.writeString(dir.resolve("broken.avsc"), "{\"type\":\"record\"}");
        Files.write(dir.resolve("shop.desc"), org.kafscale.proxy.app.validation.ProtobufFormatTest.descriptorSet());
        assertAt("validation[0].value.format", "expected one of json, json-schema, avro, protobuf",
                "validation:\n  - topics: a\n    value: {format: xml}\n");
        assertAt("validation[0].value.registry", "protobuf by registry is not supported yet",
                "validation:\n  - topics: a\n    value: {format: protobuf, registry: \"http://r\", message: a.B}\n");
        assertAt("validation[0].value.message", "required for format protobuf",
                "validation:\n  - topics: a\n    value: {format: protobuf, schema: shop.desc}\n");
        assertAt("validation[0].value.schema", "'shop.desc' has no message shop.Invoice",
                "validation:\n  - topics: a\n    value: {format: protobuf, schema: shop.desc, message: shop.Invoice}\n");
        assertAt("validation[0].value.message", "only format protobuf names a message type",
                "validation:\n  - topics: a\n    value: {format: json, message: a.B}\n");
        assertAt("validation[0].value.schema", "'broken.avsc' not an Avro schema",
                "validation:\n  - topics: a\n    value: {format: avro, schema: broken.avsc}\n");
        assertAt("validation[0].key.schema", "'absent.json' cannot be read",
                "validation:\n  - topics: a\n    key: {format: json-schema, schema: absent.json}\n");
        assertAt("validation[0].value", "needs either schema (a file) or registry (a URL)",
                "validation:\n  - topics: a\n    value: {format: avro}\n");
        assertAt("validation[0].value.schema", "format json checks well-formedness only",
                "validation:\n  - topics: a\n    value: {format: json, schema: x.json}\n");
        assertAt("validation[0].value.registry", "not an http(s) URL",
                "validation:\n  - topics: a\n    value: {format: avro, registry: \"ftp://r\"}\n");
        assertAt("validation[1].topics", "not a regular expression",
                "validation:\n  - topics: a\n    value: {format: json}\n  - topics: \"(\"\n    value: {format: json}\n");
        assertAt("validation[0].topics", "required",
                "validation:\n  - value: {format: json}\n");
        assertAt("validation[0]", "set key or value", "validation:\n  - topics: a\n");
        assertAt("validation[0].value.codec", "unknown key",
                "validation:\n  - topics: a\n    value: {format: json, codec: x}\n");
        assertAt("virtualClusters[0].validation[0].value.format", "expected one of",
                "virtualClusters:\n  - name: a\n    principals: [User:a]\n    validation:\n"
                        + "      - topics: t\n        value: {format: yaml}\n");
        assertAt("validation", "expected a list of rules", "validation: {topics: a}\n");
    }

    @Test
    void validationAloneNeedsNoAuthenticatedClients() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"),
                "validation:\n  - topics: orders\n    value: {format: json}\n");
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(ProxyConfig.GATEWAY_FILE, file.toString());
        ProxyConfig config = ProxyConfig.from(env);
        assertTrue(config.virtualClusters().isEmpty());
        assertEquals(1, config.gateway().validation().global().size());
    }

    private void assertAt(String path, String says, String yaml) throws Exception {
        String message = error(yaml);
        assertTrue(message.contains(" is invalid at " + path + ": "), message);
        assertTrue(message.contains(says), message);
        assertTrue(message.startsWith("KAFSCALE_PROXY_GATEWAY_FILE ("), message);
    }
}
