package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.deploy.RepoPaths;

/**
 * The chart and the proxy's settings cannot drift apart: every {@link ConfigKey} can be set
 * through the chart and reaches the container, and the chart offers no core setting the proxy
 * would ignore.
 */
class ChartSettingsDriftTest {

    /**
     * Settings the chart derives from its own values (so Service, probes and grace period agree
     * with the proxy) or keeps in the Secret: how a user sets each, and what the container gets.
     */
    private static final Map<String, Owned> OWNED = owned();

    @Test
    void everyProxySettingCanBeSetThroughTheChartAndReachesTheContainer() throws IOException {
        // Given: every setting set at once, each to a value of its own
        Set<String> byName = configNamesInSchema();
        Map<String, String> expected = new LinkedHashMap<>();
        ChartRenderer chart = ChartRenderer.chart();
        List<String> unreachable = new ArrayList<>();
        for (ConfigKey key : ConfigKey.values()) {
            String name = key.envName();
            Owned owned = OWNED.get(name);
            if (owned != null) {
                owned.values().forEach(chart::set);
                expected.put(name, owned.expected());
            } else if (byName.contains(name)) {
                String value = sampleValue(key);
                chart.set("config." + name, value);
                expected.put(name, value);
            } else {
                unreachable.add(name);
            }
        }
        assertEquals(List.of(), unreachable,
                "Settings the chart cannot set: add them to values.schema.json (config.properties) "
                        + "or give them a value of their own");

        // When
        RenderedChart rendered = chart.render();

        // Then
        Map<String, String> actual = new LinkedHashMap<>();
        expected.keySet().forEach(name -> actual.put(name, rendered.effectiveSetting(name).orElse(null)));
        assertEquals(expected, actual);
    }

    @Test
    void chartOffersNoCoreSettingTheProxyIgnores() throws IOException {
        Set<String> offered = new TreeSet<>(configNamesInSchema());
        offered.addAll(OWNED.keySet());
        offered.addAll(ChartRenderer.chart().values("all-features-values.yaml").render().configMapData().keySet());

        List<String> ignored = offered.stream()
                .filter(name -> ConfigKey.byName(name).isEmpty())
                .filter(name -> !readByLfsModule(name))
                .toList();

        assertEquals(List.of(), ignored, "The proxy would log 'Ignoring environment variable' for these");
    }

    @Test
    void secretsNeverReachTheConfigMap() {
        for (Map.Entry<String, Owned> owned : OWNED.entrySet()) {
            if (owned.getValue().secret()) {
                // Every feature on, plus what sets this secret (some exclude each other, as a
                // password and an OAuth client secret do).
                ChartRenderer chart = ChartRenderer.chart().values("all-features-values.yaml");
                owned.getValue().values().forEach(chart::set);
                RenderedChart rendered = chart.render();
                assertFalse(rendered.configMapData().containsKey(owned.getKey()), owned.getKey());
                assertTrue(rendered.secretData().containsKey(owned.getKey()), owned.getKey());
                assertFalse(rendered.configMapData().containsValue(rendered.secretData().get(owned.getKey())),
                        "value of " + owned.getKey() + " in the ConfigMap");
            }
        }
    }

    /** Read by the proxy's LFS module, which takes its settings itself (see ConfigSources). */
    private static boolean readByLfsModule(String name) {
        return name.startsWith("KAFSCALE_LFS_") || name.equals("KAFSCALE_S3_NAMESPACE")
                || name.equals("KAFSCALE_PROXY_LFS_ENABLED");
    }

    /** A value the schema accepts and the proxy could take: a number in range, an enum value, or text. */
    private static String sampleValue(ConfigKey key) throws IOException {
        JsonNode property = configSchema().path("properties").path(key.envName());
        for (JsonNode allowed : property.path("enum")) {
            if (!allowed.asText().isEmpty()) {
                return allowed.asText();
            }
        }
        return key.range().map(range -> String.valueOf(Math.min(range.max(), range.min() + 7)))
                .orElse("drift-" + key.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }

    private static Set<String> configNamesInSchema() throws IOException {
        Set<String> names = new TreeSet<>();
        configSchema().path("properties").fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static JsonNode configSchema() throws IOException {
        JsonNode schema = new ObjectMapper().readTree(RepoPaths.chart().resolve("values.schema.json").toFile());
        return schema.path("properties").path("config");
    }

    private record Owned(Map<String, Object> values, String expected, boolean secret) {
    }

    private static Map<String, Owned> owned() {
        Map<String, Object> lfsOn = Map.of("lfs.enabled", true, "lfs.s3.bucket", "drift-bucket",
                "lfs.s3.region", "drift-region");
        Map<String, Owned> owned = new LinkedHashMap<>();
        owned.put("KAFSCALE_PROXY_ADDR", new Owned(Map.of("ports.kafka", 19092), ":19092", false));
        owned.put("KAFSCALE_PROXY_HEALTH_ADDR", new Owned(Map.of("ports.health", 19094), ":19094", false));
        owned.put("KAFSCALE_PROXY_BROKER_PORT_BASE", new Owned(Map.of("advertiseMode", "ports", "brokerPorts.base",
                19100), "19100", false));
        owned.put("KAFSCALE_PROXY_BROKER_PORT_COUNT", new Owned(Map.of("advertiseMode", "ports", "brokerPorts.count",
                7), "7", false));
        owned.put("KAFSCALE_PROXY_DRAIN_TIMEOUT_MS", new Owned(Map.of("drainTimeoutMs", 12345), "12345", false));
        owned.put("KAFSCALE_PROXY_LFS_ENABLED", new Owned(lfsOn, "true", false));
        owned.put("KAFSCALE_LFS_PROXY_HTTP_ADDR", new Owned(with(lfsOn, "ports.lfs", 18080), ":18080", false));
        owned.put("KAFSCALE_PROXY_ETCD_PASSWORD", new Owned(Map.of("etcd.password", "drift-etcd"), "drift-etcd", true));
        owned.put("KAFSCALE_PROXY_ADMIN_TOKEN", new Owned(Map.of("admin.token", "drift-admin"), "drift-admin", true));
        owned.put("KAFSCALE_LFS_PROXY_HTTP_API_KEY", new Owned(with(lfsOn, "lfs.apiKey", "drift-key"), "drift-key", true));
        owned.put("KAFSCALE_LFS_PROXY_S3_ACCESS_KEY",
                new Owned(with(lfsOn, "lfs.s3.accessKey", "drift-access"), "drift-access", true));
        owned.put("KAFSCALE_LFS_PROXY_S3_SECRET_KEY",
                new Owned(with(lfsOn, "lfs.s3.secretKey", "drift-secret"), "drift-secret", true));
        owned.put("KAFSCALE_LFS_PROXY_S3_SESSION_TOKEN",
                new Owned(with(lfsOn, "lfs.s3.sessionToken", "drift-token"), "drift-token", true));
        owned.put("KAFSCALE_PROXY_BACKEND_SASL_PASSWORD",
                new Owned(Map.of("backend.sasl.password", "drift-sasl"), "drift-sasl", true));
        owned.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET",
                new Owned(Map.of("backend.sasl.oauth.clientSecret", "drift-oauth"), "drift-oauth", true));
        return owned;
    }

    private static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
        Map<String, Object> values = new LinkedHashMap<>(base);
        values.put(key, value);
        return values;
    }
}
