package org.kafscale.proxy.app.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The dashboard in docs/ queries only series that docs/metrics.md lists, so the two cannot drift apart. */
class GrafanaDashboardTest {
    private static final Pattern SERIES = Pattern.compile("\\b(kafscale_proxy_[a-z_]+|jvm_[a-z_]+)\\b");

    @Test
    void everySeriesTheDashboardQueriesIsDocumented() throws Exception {
        // Given
        Path docs = repositoryRoot().resolve("docs");
        JsonNode dashboard = new ObjectMapper().readTree(docs.resolve("grafana-dashboard.json").toFile());
        String metricsDoc = Files.readString(docs.resolve("metrics.md"));
        // When
        List<String> queried = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                Matcher m = SERIES.matcher(target.get("expr").asText());
                while (m.find()) {
                    queried.add(m.group(1));
                }
            }
        }
        // Then
        assertFalse(queried.isEmpty(), "the dashboard queries something");
        for (String series : queried) {
            assertTrue(documented(series, metricsDoc), series + " is queried by docs/grafana-dashboard.json "
                    + "but not listed in docs/metrics.md");
        }
    }

    /** A series is documented under its own name or its base name (_count, _sum, _total added by Prometheus). */
    private static boolean documented(String series, String doc) {
        String base = series.replaceAll("_(count|sum|max|total)$", "");
        return doc.contains(series) || doc.contains("`" + base + "`") || doc.contains("`" + base + "_")
                || (series.startsWith("jvm_") && doc.contains("jvm_memory_*"));
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("docs"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no docs/ folder above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
