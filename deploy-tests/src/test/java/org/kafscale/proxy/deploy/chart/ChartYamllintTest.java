package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.deploy.RepoPaths;

/** The rendered manifests and the values a user edits are clean YAML by helm/yamllint.yaml. */
class ChartYamllintTest {

    @Test
    void renderedManifestsAndValuesPassYamllint() throws Exception {
        // Given: the chart rendered with defaults and with every feature on, kept in target/ so a
        // failure can be read
        Path dir = Files.createDirectories(Path.of("target", "rendered"));
        Path defaults = Files.writeString(dir.resolve("defaults.yaml"), ChartRenderer.chart().renderText());
        Path allFeatures = Files.writeString(dir.resolve("all-features.yaml"),
                ChartRenderer.chart().values("all-features-values.yaml").renderText());

        // When
        Yamllint.Result result = Yamllint.check(List.of(defaults, allFeatures,
                RepoPaths.chart().resolve("values.yaml"),
                Path.of("src", "test", "resources", "all-features-values.yaml"),
                Yamllint.config()));

        // Then
        assertEquals(0, result.exitCode(), result.output());
    }

    @Test
    void yamllintSettingsRejectWhatWouldMisleadKubernetes(@TempDir Path dir) throws Exception {
        // Given: a manifest with a duplicated key (the second silently wins) and a yes/no truthy
        Path bad = Files.writeString(dir.resolve("bad.yaml"), """
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: twice
                  name: again
                data:
                  enabled: yes
                """);

        // When
        Yamllint.Result result = Yamllint.check(List.of(bad));

        // Then
        assertEquals(1, result.exitCode(), result.output());
        assertTrue(result.output().contains("key-duplicates"), result.output());
        assertTrue(result.output().contains("truthy"), result.output());
    }
}
