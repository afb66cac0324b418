package org.kafscale.proxy.app.reload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.app.config.Gateway;
import org.kafscale.proxy.app.config.GatewayFile;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live reconfiguration: reads the settings and the gateway file again, refuses the result whole
 * if it is invalid, and otherwise applies what a running proxy can apply ({@link ConfigChanges})
 * to new connections, draining the open connections it changes (answered, then closed, so their
 * clients reconnect and read Metadata again). What applies only at a start is named and left as
 * it runs. Reloads run one at a time, off the event loops.
 */
public final class ConfigReload {
    private static final Logger LOGGER = LoggerFactory.getLogger(ConfigReload.class);
    private static final String GATEWAY_FILE = ConfigKey.GATEWAY_FILE.envName();

    private final ConfigInputs inputs;
    private final ReloadTarget target;
    private final ReloadMetrics metrics;
    /** The settings, file and configuration in force (less what waits for a restart). */
    private Map<String, String> settings;
    private GatewayTree tree;
    private ProxyConfig config;
    /** The content of each watched file at the last look: a change there triggers a reload. */
    private final Map<Path, byte[]> seen = new LinkedHashMap<>();
    /**
     * What {@code GET /admin/config} shows, made after each reload: the health listener's event
     * loop reads it without waiting for a reload in progress.
     */
    private volatile JsonNode shown;

    /**
     * @param settings the merged settings the proxy started with
     * @param config the configuration made from them
     */
    public ConfigReload(ConfigInputs inputs, Map<String, String> settings, ProxyConfig config, ReloadTarget target,
                        MeterRegistry registry) {
        this.inputs = inputs;
        this.target = target;
        this.metrics = new ReloadMetrics(registry);
        this.settings = Map.copyOf(settings);
        this.config = config;
        this.tree = gatewayFile(settings).map(file -> GatewayTree.parse(read(file))).orElse(GatewayTree.NONE);
        watchedFiles().forEach(file -> seen.put(file, readOrEmpty(file)));
        this.shown = show(Optional.empty());
    }

    /**
     * Reloads now. Blocks (it reads files, may open key stores): never call it on an event loop.
     *
     * @param trigger what asked for it, for the log and the answer
     */
    public synchronized ReloadOutcome reload(String trigger) {
        ReloadOutcome outcome;
        try {
            outcome = apply(trigger);
        } catch (ConfigException e) {
            outcome = ReloadOutcome.refused(trigger, e.getMessage());
            LOGGER.error("Configuration reload ({}) refused; the running configuration stays: {}", trigger,
                    e.getMessage());
        }
        shown = show(Optional.of(outcome));
        metrics.record(outcome);
        return outcome;
    }

    private ReloadOutcome apply(String trigger) {
        Map<String, String> next = inputs.resolve();
        Optional<Path> file = gatewayFile(next);
        byte[] text = file.map(ConfigReload::read).orElse(new byte[0]);
        // The whole new configuration is checked first, as a start would check it: any error refuses it all.
        ProxyConfig.from(next, path -> GatewayFile.parse(path.toString(), text, folderOf(path)));
        GatewayTree nextTree = file.isPresent() ? GatewayTree.parse(text) : GatewayTree.NONE;
        ConfigChanges changes = ConfigChanges.between(settings, next, tree, nextTree, config.advertiseMode());
        if (changes.nothingApplied()) {
            if (!changes.atNextStart().isEmpty()) {
                LOGGER.info("Configuration reload ({}): nothing to apply now; at the next start: {}", trigger,
                        String.join("; ", changes.atNextStart()));
            }
            return new ReloadOutcome(ReloadOutcome.Result.UNCHANGED, trigger, Instant.now(), List.of(),
                    changes.atNextStart(), Optional.empty());
        }
        // What applies only at a start stays as it runs: the settings, the audit trail, the listeners.
        Map<String, String> effectiveSettings = new LinkedHashMap<>(next);
        for (String name : changes.restartOnlySettings()) {
            if (settings.containsKey(name)) {
                effectiveSettings.put(name, settings.get(name));
            } else {
                effectiveSettings.remove(name);
            }
        }
        GatewayTree effectiveTree = nextTree.keepingFixedFrom(tree);
        byte[] effectiveText = effectiveTree.text();
        ProxyConfig effective = ProxyConfig.from(effectiveSettings, path -> effectiveTree.isEmpty() ? Gateway.NONE
                : GatewayFile.parse(path + " (as applied live)", effectiveText, folderOf(path)));
        target.apply(effective, changes.acls(), affected(changes));
        settings = Map.copyOf(effectiveSettings);
        tree = effectiveTree;
        config = effective;
        LOGGER.info("Configuration reloaded ({}): applied {}{}", trigger, String.join("; ", changes.applied()),
                changes.atNextStart().isEmpty() ? "" : "; at the next start: " + String.join("; ", changes.atNextStart()));
        return new ReloadOutcome(ReloadOutcome.Result.APPLIED, trigger, Instant.now(), changes.applied(),
                changes.atNextStart(), Optional.empty());
    }

    /**
     * The connections a change moves: every one, or those of a virtual cluster that changed, or,
     * when who is placed where changed, those not placed yet whose principal a changed virtual
     * cluster names or who have not authenticated yet: their path would place them as before.
     */
    static Predicate<ConnectionContext> affected(ConfigChanges changes) {
        return connection -> changes.everyConnection() || connection.virtualCluster()
                .map(changes.changedClusters()::contains)
                .orElseGet(() -> changes.placement() && (KafkaPrincipal.ANONYMOUS.equals(connection.principal())
                        || changes.movedPrincipals().contains(connection.principal().toString())));
    }

    /**
     * Looks at the watched files every {@code every} on {@code housekeeping}, and reloads when one
     * of them changed (its content, so a Kubernetes ConfigMap's swapped link is seen too).
     */
    public void follow(ScheduledExecutorService housekeeping, Duration every) {
        if (every.isZero()) {
            return;
        }
        housekeeping.scheduleWithFixedDelay(this::lookAtFiles, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized void lookAtFiles() {
        List<Path> changed = new ArrayList<>();
        for (Path file : watchedFiles()) {
            byte[] now = readOrEmpty(file);
            byte[] before = seen.put(file, now);
            if (before == null || !Arrays.equals(before, now)) {
                changed.add(file);
            }
        }
        if (!changed.isEmpty()) {
            reload("changed: " + String.join(", ", changed.stream().map(Path::toString).toList()));
        }
    }

    /** The files whose change triggers a reload: the {@code --config} file and the gateway file. */
    private List<Path> watchedFiles() {
        List<Path> files = new ArrayList<>();
        inputs.configFile().ifPresent(files::add);
        // The gateway file in force: one named anew in the --config file is followed once that is reloaded.
        gatewayFile(settings).ifPresent(files::add);
        return files;
    }

    /** Reloads on another thread: what {@code POST /admin/reload} calls from its event loop. */
    public CompletableFuture<ReloadOutcome> reloadOn(ScheduledExecutorService executor, String trigger) {
        return CompletableFuture.supplyAsync(() -> reload(trigger), executor);
    }

    /** The configuration in force, secrets redacted, and the last reload: {@code GET /admin/config}. */
    public JsonNode inForce() {
        return shown;
    }

    private JsonNode show(Optional<ReloadOutcome> last) {
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        ObjectNode values = answer.putObject("settings");
        Redaction.settings(settings).forEach(values::put);
        answer.set("gatewayFile", Redaction.tree(tree.root()));
        last.ifPresent(outcome -> answer.set("lastReload", ReloadAnswers.json(outcome)));
        return answer;
    }

    private static Optional<Path> gatewayFile(Map<String, String> settings) {
        return Optional.ofNullable(settings.get(GATEWAY_FILE)).filter(v -> !v.isBlank()).map(Path::of);
    }

    private static Path folderOf(Path file) {
        Path folder = file.toAbsolutePath().getParent();
        return folder == null ? Path.of("") : folder;
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(GATEWAY_FILE + " (" + file + ") cannot be read: " + e.getMessage());
        }
    }

    private static byte[] readOrEmpty(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            // A file being replaced may be missing for a moment; its next content is a change.
            return new byte[0];
        }
    }
}
