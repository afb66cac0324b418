package org.kafscale.proxy.deploy.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The objects of one rendering, parsed from YAML, with accessors for what the tests look at. */
public final class RenderedChart {
    private static final YAMLMapper YAML = new YAMLMapper();

    private final List<JsonNode> objects;

    private RenderedChart(List<JsonNode> objects) {
        this.objects = objects;
    }

    static RenderedChart parse(String manifests) {
        List<JsonNode> objects = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(manifests)) {
            while (documents.hasNext()) {
                JsonNode document = documents.next();
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    objects.add(document);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Rendered chart is not YAML:\n" + manifests, e);
        }
        return new RenderedChart(objects);
    }

    /** The kinds rendered, in order. */
    public List<String> kinds() {
        return objects.stream().map(o -> o.path("kind").asText()).toList();
    }

    public Optional<JsonNode> find(String kind) {
        List<JsonNode> matching = objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
        if (matching.size() > 1) {
            throw new AssertionError("More than one " + kind + " rendered");
        }
        return matching.stream().findFirst();
    }

    /** Every {@code kind} rendered, in order. */
    public List<JsonNode> all(String kind) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    }

    /** The one {@code kind} named {@code name}. */
    public JsonNode get(String kind, String name) {
        return objects.stream()
                .filter(o -> kind.equals(o.path("kind").asText()) && name.equals(o.path("metadata").path("name").asText()))
                .findFirst().orElseThrow(() -> new AssertionError("No " + kind + " " + name + " rendered; kinds: " + kinds()));
    }

    /** The Service clients use (the chart also renders a cluster-internal one for health). */
    public JsonNode service() {
        return get("Service", ChartRenderer.RELEASE + "-kafscale-proxy");
    }

    /** The cluster-internal Service of the health port. */
    public JsonNode healthService() {
        return get("Service", ChartRenderer.RELEASE + "-kafscale-proxy-health");
    }

    public JsonNode get(String kind) {
        return find(kind).orElseThrow(() -> new AssertionError("No " + kind + " rendered; kinds: " + kinds()));
    }

    public JsonNode podSpec() {
        return get("Deployment").path("spec").path("template").path("spec");
    }

    public JsonNode container() {
        JsonNode containers = podSpec().path("containers");
        if (containers.size() != 1) {
            throw new AssertionError("Expected one container, got " + containers.size());
        }
        return containers.get(0);
    }

    /** The container's env by name; each entry is the whole EnvVar. */
    public Map<String, JsonNode> env() {
        Map<String, JsonNode> env = new LinkedHashMap<>();
        for (JsonNode var : container().path("env")) {
            if (env.put(var.path("name").asText(), var) != null) {
                throw new AssertionError("Env var set twice: " + var.path("name").asText());
            }
        }
        return env;
    }

    /** The chart's ConfigMap of settings (the gateway file, when rendered, has one of its own). */
    public JsonNode settingsConfigMap() {
        return get("ConfigMap", ChartRenderer.RELEASE + "-kafscale-proxy");
    }

    public Map<String, String> configMapData() {
        Map<String, String> data = new TreeMap<>();
        settingsConfigMap().path("data").fields().forEachRemaining(e -> data.put(e.getKey(), e.getValue().asText()));
        return data;
    }

    /** The chart's Secret, decoded; empty when none was rendered. */
    public Map<String, String> secretData() {
        Map<String, String> data = new TreeMap<>();
        find("Secret").ifPresent(secret -> secret.path("data").fields().forEachRemaining(e -> data.put(e.getKey(),
                new String(Base64.getDecoder().decode(e.getValue().asText()), StandardCharsets.UTF_8))));
        return data;
    }

    /**
     * The value a setting has in the running container: the env entry resolved through the
     * chart's ConfigMap or Secret. Empty when the container does not get the variable.
     */
    public Optional<String> effectiveSetting(String name) {
        JsonNode var = env().get(name);
        if (var == null) {
            return Optional.empty();
        }
        if (var.has("value")) {
            return Optional.of(var.path("value").asText());
        }
        JsonNode fromConfigMap = var.path("valueFrom").path("configMapKeyRef");
        if (!fromConfigMap.isMissingNode()) {
            assertRefersTo(fromConfigMap, "ConfigMap");
            return Optional.ofNullable(configMapData().get(fromConfigMap.path("key").asText()));
        }
        JsonNode fromSecret = var.path("valueFrom").path("secretKeyRef");
        if (!fromSecret.isMissingNode()) {
            assertRefersTo(fromSecret, "Secret");
            return Optional.ofNullable(secretData().get(fromSecret.path("key").asText()));
        }
        throw new AssertionError("Env var " + name + " has no value the chart controls: " + var);
    }

    private void assertRefersTo(JsonNode reference, String kind) {
        String target = (kind.equals("ConfigMap") ? settingsConfigMap() : get(kind)).path("metadata").path("name").asText();
        if (!target.equals(reference.path("name").asText())) {
            throw new AssertionError("Env refers to " + kind + " " + reference.path("name") + ", rendered is " + target);
        }
    }
}
