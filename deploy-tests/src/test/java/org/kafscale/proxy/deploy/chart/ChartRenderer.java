package org.kafscale.proxy.deploy.chart;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.kafscale.proxy.deploy.RepoPaths;

/**
 * Renders helm/kafscale-proxy with the Helm library that helm-java embeds, as `helm template`
 * would, into objects the tests can read. Values come as `--set` pairs and values files.
 */
public final class ChartRenderer {
    public static final String RELEASE = "kproxy";
    public static final String NAMESPACE = "streaming";
    /** A current cluster; `helm template` alone assumes 1.20, older than the chart's kubeVersion. */
    public static final String KUBE_VERSION = "1.31.0";

    private final Map<String, Object> sets = new LinkedHashMap<>();
    private Path valuesFile;

    public static ChartRenderer chart() {
        return new ChartRenderer();
    }

    public ChartRenderer set(String key, Object value) {
        sets.put(key, value);
        return this;
    }

    /** Values from a file of this module's test resources (for lists and maps). */
    public ChartRenderer values(String resource) {
        this.valuesFile = Path.of("src", "test", "resources", resource).toAbsolutePath();
        if (!Files.isRegularFile(valuesFile)) {
            throw new IllegalArgumentException("No values file " + valuesFile);
        }
        return this;
    }

    /** Values written inline, as YAML, to a temporary file. */
    public ChartRenderer valuesYaml(String yaml) {
        try {
            Path file = Files.createTempFile("values-", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(file, yaml);
            this.valuesFile = file;
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rendered manifests as `helm template` prints them. Throws with Helm's message on failure. */
    public String renderText() {
        TemplateCommand template = new Helm(RepoPaths.chart()).template()
                .withName(RELEASE)
                .withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION);
        if (valuesFile != null) {
            template = template.withValuesFile(valuesFile);
        }
        for (Map.Entry<String, Object> set : sets.entrySet()) {
            template = template.set(set.getKey(), set.getValue());
        }
        return template.call();
    }

    /**
     * What `helm install` prints, NOTES.txt included (`helm template` leaves NOTES out): a
     * client-only dry run, so no cluster is needed.
     */
    public String installOutput() {
        InstallCommand install = new Helm(RepoPaths.chart()).install()
                .withName(RELEASE)
                .withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION)
                .clientOnly()
                .dryRun();
        if (valuesFile != null) {
            install = install.withValuesFile(valuesFile);
        }
        for (Map.Entry<String, Object> set : sets.entrySet()) {
            install = install.set(set.getKey(), set.getValue());
        }
        return install.call().getOutput();
    }

    public RenderedChart render() {
        return RenderedChart.parse(renderText());
    }
}
