package org.kafscale.proxy.app.reload;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.core.local.AdvertiseMode;

/**
 * What a new configuration changes against the running one, and what each change asks of the
 * connections: which changes a reload applies, which wait for the next start, and which clients
 * must reconnect to take them.
 *
 * @param applied what is applied now, one line each (a setting's name, a section, a virtual cluster)
 * @param atNextStart what changed but applies only at the next start, one line each
 * @param restartOnlySettings the names of the flat settings among {@code atNextStart}
 * @param changedClusters the virtual clusters added, removed or changed now: their clients reconnect
 * @param everyConnection whether every client reconnects (the advertised address, authorization,
 *     validation or encryption changed)
 * @param placement whether who is placed where changed: clients not placed yet reconnect, to be placed anew
 * @param movedPrincipals the principals the changed virtual clusters named, before or after: a
 *     client of theirs not placed yet reconnects, to be placed anew
 * @param acls whether an ACL file or what it is read against changed: the ACL files are loaded again
 */
record ConfigChanges(List<String> applied, List<String> atNextStart, Set<String> restartOnlySettings,
                     Set<String> changedClusters, boolean everyConnection, boolean placement,
                     Set<String> movedPrincipals, boolean acls) {

    /** Flat settings a reload applies: read only when a connection's path is made, or by the ACL files. */
    private static final Set<String> LIVE = Set.of(ConfigKey.ADVERTISED_HOST.envName(),
            ConfigKey.ADVERTISED_PORT.envName(), ConfigKey.GATEWAY_FILE.envName(), ConfigKey.ACL_FILE.envName(),
            ConfigKey.ACL_RELOAD_MS.envName(), ConfigKey.FETCH_READ_AHEAD.envName(),
            ConfigKey.FETCH_READ_AHEAD_MAX_BYTES.envName(),
            // Taken by each connection when it is accepted: new connections get the new value.
            ConfigKey.FRAME_READ_TIMEOUT_MS.envName(), ConfigKey.IDLE_TIMEOUT_MS.envName(),
            ConfigKey.UNAUTHENTICATED_IDLE_TIMEOUT_MS.envName());
    /** Of those, the ones every connection must reconnect for: it was told them, or is checked by them. */
    private static final Set<String> RECONNECT = Set.of(ConfigKey.ADVERTISED_HOST.envName(),
            ConfigKey.ADVERTISED_PORT.envName(), ConfigKey.ACL_FILE.envName());
    private static final Set<String> ACL_SETTINGS = Set.of(ConfigKey.ACL_FILE.envName(),
            ConfigKey.ACL_RELOAD_MS.envName());

    boolean nothingApplied() {
        return applied.isEmpty();
    }

    static ConfigChanges between(Map<String, String> runningSettings, Map<String, String> newSettings,
                                 GatewayTree running, GatewayTree next, AdvertiseMode mode) {
        List<String> applied = new ArrayList<>();
        List<String> atNextStart = new ArrayList<>();
        Set<String> restartOnly = new TreeSet<>();
        Set<String> clusters = new LinkedHashSet<>();
        Set<String> moved = new TreeSet<>();
        boolean every = false;
        boolean placement = false;
        boolean acls = false;
        Set<String> names = new TreeSet<>(runningSettings.keySet());
        names.addAll(newSettings.keySet());
        for (String name : names) {
            if (Objects.equals(runningSettings.get(name), newSettings.get(name))) {
                continue;
            }
            // In mode ports the advertised port anchors the broker ports, which are bound at start.
            boolean live = LIVE.contains(name)
                    && !(mode == AdvertiseMode.PORTS && name.equals(ConfigKey.ADVERTISED_PORT.envName()));
            if (live) {
                applied.add(name);
                every |= RECONNECT.contains(name);
                acls |= ACL_SETTINGS.contains(name);
            } else {
                atNextStart.add(name);
                restartOnly.add(name);
            }
        }
        if (!Objects.equals(running.section(GatewayTree.AUDIT), next.section(GatewayTree.AUDIT))) {
            atNextStart.add("the gateway file's audit section");
        }
        for (String section : List.of(GatewayTree.VALIDATION, GatewayTree.ENCRYPTION, GatewayTree.LFS_RESOLVE)) {
            if (!Objects.equals(running.section(section), next.section(section))) {
                applied.add("the gateway file's " + section + " section");
                every = true;
            }
        }
        Map<String, JsonNode> before = running.clusters();
        Map<String, JsonNode> after = next.clusters();
        Set<String> clusterNames = new LinkedHashSet<>(before.keySet());
        clusterNames.addAll(after.keySet());
        for (String name : clusterNames) {
            JsonNode was = before.get(name);
            JsonNode is = after.get(name);
            if (Objects.equals(was, is)) {
                continue;
            }
            String what = "virtual cluster '" + name + "' " + (was == null ? "added" : is == null ? "removed" : "changed");
            if (GatewayTree.placedBySocket(was) || GatewayTree.placedBySocket(is)) {
                atNextStart.add(what + " (it has a listener or TLS server name of its own)");
                continue;
            }
            applied.add(what);
            clusters.add(name);
            placement |= was == null || is == null || !Objects.equals(was.get("principals"), is.get("principals"));
            for (JsonNode entry : new JsonNode[] {was, is}) {
                if (entry != null) {
                    entry.path("principals").forEach(principal -> moved.add(principal.asText()));
                }
            }
            // A tenant's ACL file is read in its names: its prefixes or its file changed with it.
            acls |= has(was, "aclFile") || has(is, "aclFile");
        }
        return new ConfigChanges(List.copyOf(applied), List.copyOf(atNextStart), Set.copyOf(restartOnly),
                Set.copyOf(clusters), every, placement, Set.copyOf(moved), acls);
    }

    private static boolean has(JsonNode cluster, String key) {
        return Optional.ofNullable(cluster).map(c -> c.has(key)).orElse(false);
    }
}
