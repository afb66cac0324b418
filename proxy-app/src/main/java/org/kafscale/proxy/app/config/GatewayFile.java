package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.app.validation.SchemaRegistryClient;
import org.kafscale.proxy.core.codec.AclNames;
import org.kafscale.proxy.core.encryption.EncryptionRule;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.TenantNames;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.validation.ValidationRule;
import org.kafscale.proxy.core.validation.ValidationRules;

/**
 * Reads the gateway file ({@code KAFSCALE_PROXY_GATEWAY_FILE}): YAML (or JSON), the audit trail's
 * {@code audit} section ({@link GatewayAudit}; a file may hold only that), and a list
 * {@code virtualClusters}, each with a {@code name}, the {@code principals} placed in it
 * ({@code User:alice}), and optionally its {@code clusterId} and its {@code topicPrefix},
 * {@code groupPrefix} and {@code transactionalIdPrefix} (each {@code <name>.} by default), its
 * {@code quotas} and its own {@code aclFile} (read relative to the gateway file). Every
 * problem is an error naming the setting, the file and the path in it
 * ({@code virtualClusters[1].topicPrefix}). A {@code validation} list, at the top or in a virtual
 * cluster, sets record validation ({@link GatewayValidation}); a file with it may have no virtual
 * clusters. A key the proxy does not know yet is refused rather
 * than ignored, so a file written for a later version does not half-apply.
 */
public final class GatewayFile {
    static final String SETTING = "KAFSCALE_PROXY_GATEWAY_FILE";
    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory());
    /** The file's sections. */
    private static final Set<String> ROOT_KEYS = Set.of("virtualClusters", "audit", "validation", "encryption",
            GatewayLfsResolve.SECTION);
    private static final Set<String> KEYS = Set.of("name", "principals", "clusterId", "topicPrefix", "groupPrefix",
            "transactionalIdPrefix", "quotas", "aclFile", "listener", "brokerPortBase", "credentialsFile", "validation",
            "sniHostSuffix");

    private GatewayFile() {
    }

    /** The virtual clusters, quotas and audit trail of the file at {@code path}. */
    public static Gateway read(Path path) {
        byte[] text;
        try {
            text = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new ConfigException(SETTING + " (" + path + ") cannot be read: " + e.getMessage());
        }
        Path folder = path.toAbsolutePath().getParent();
        return parse(path.toString(), text, folder == null ? Path.of("") : folder);
    }

    /**
     * The virtual clusters and quotas in {@code text}, read from {@code source} (named in errors).
     *
     * @throws ConfigException naming the setting, {@code source} and the path of the first problem
     */
    public static Gateway parse(String source, byte[] text) {
        return parse(source, text, Path.of("").toAbsolutePath());
    }

    /**
     * As {@link #parse(String, byte[])}, with the files the gateway file names ({@code aclFile},
     * {@code credentialsFile}, validation's schema files) read relative to {@code base} (the
     * gateway file's own folder, so a config map's files can name each other).
     */
    public static Gateway parse(String source, byte[] text, Path base) {
        String where = SETTING + " (" + source + ")";
        JsonNode root;
        try {
            root = new String(text, StandardCharsets.UTF_8).isBlank() ? null : MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new ConfigException(where + " is invalid" + (e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr()) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException(where + " cannot be read: " + e.getMessage());
        }
        // A file of an audit trail, record validation or encryption alone has no virtual clusters; any other needs at least one.
        boolean noClusters = root != null && root.isObject() && (root.has("audit") || root.has("validation")
                || root.has("encryption") || root.has(GatewayLfsResolve.SECTION))
                && !root.has("virtualClusters");
        if (root == null || !root.isObject() || !noClusters && (!root.path("virtualClusters").isArray()
                || root.path("virtualClusters").isEmpty())) {
            throw new ConfigException(where + " is invalid: expected a list `virtualClusters` with at least one entry");
        }
        for (Iterator<String> keys = root.fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            if (!ROOT_KEYS.contains(key)) {
                throw new ConfigException(where + " is invalid at " + key + ": unknown key (expected "
                        + String.join(", ", ROOT_KEYS.stream().sorted().toList()) + ")");
            }
        }
        Optional<AuditSettings> audit = GatewayAudit.parse(where, "audit", root.get("audit"));
        Map<java.net.URI, SchemaRegistryClient> registries = new HashMap<>();
        List<ValidationRule> globalRules = GatewayValidation.parse(where, "validation", root.get("validation"), base,
                registries);
        Map<String, List<ValidationRule>> clusterRules = new HashMap<>();
        List<VirtualCluster> clusters = new ArrayList<>();
        Map<String, TenantQuotas> quotas = new HashMap<>();
        Map<String, Path> aclFiles = new HashMap<>();
        Map<String, HostPort> listeners = new HashMap<>();
        Map<HostPort, String> listenerOwners = new HashMap<>();
        Map<String, Path> credentialsFiles = new HashMap<>();
        Map<String, Integer> brokerPortBases = new HashMap<>();
        Map<String, String> sniHostSuffixes = new HashMap<>();
        JsonNode list = root.path("virtualClusters");
        for (int i = 0; i < list.size(); i++) {
            String path = "virtualClusters[" + i + "]";
            VirtualCluster cluster = cluster(where, path, list.get(i));
            clusters.add(cluster);
            TenantQuotas limits = GatewayQuotas.parse(where, path + ".quotas", list.get(i).get("quotas"),
                    cluster.principals());
            if (!limits.isEmpty()) {
                quotas.put(cluster.name(), limits);
            }
            String aclFile = text(where, path + ".aclFile", list.get(i).get("aclFile"), false);
            if (aclFile != null) {
                aclFiles.put(cluster.name(), base.resolve(aclFile));
            }
            HostPort listener = listener(where, path + ".listener", list.get(i).get("listener"));
            String sniHostSuffix = text(where, path + ".sniHostSuffix", list.get(i).get("sniHostSuffix"), false);
            if (sniHostSuffix != null) {
                // The names under it, and how they overlap the shared ones, are checked with the SNI settings.
                sniHostSuffixes.put(cluster.name(), sniHostSuffix);
            }
            if (listener != null) {
                String other = listenerOwners.putIfAbsent(listener, cluster.name());
                if (other != null) {
                    throw new ConfigException(where + " is invalid at " + path + ".listener: " + listener
                            + " is the listener of virtual cluster '" + other + "' already");
                }
                listeners.put(cluster.name(), listener);
            } else if (cluster.principals().isEmpty() && sniHostSuffix == null) {
                throw new ConfigException(where + " is invalid at " + path + ".principals: expected a list of at least "
                        + "one principal (User:alice), or a listener or an sniHostSuffix of its own");
            }
            JsonNode portBase = list.get(i).get("brokerPortBase");
            if (portBase != null) {
                if (!portBase.canConvertToInt() || !portBase.isIntegralNumber() || portBase.intValue() < 1
                        || portBase.intValue() > 65535) {
                    throw new ConfigException(where + " is invalid at " + path + ".brokerPortBase: expected a port "
                            + "from 1 to 65535");
                }
                if (listener == null) {
                    throw new ConfigException(where + " is invalid at " + path + ".brokerPortBase: needs a listener "
                            + "of its own, whose brokers it gives ports");
                }
                brokerPortBases.put(cluster.name(), portBase.intValue());
            }
            String credentialsFile = text(where, path + ".credentialsFile", list.get(i).get("credentialsFile"), false);
            if (credentialsFile != null) {
                if (listener == null) {
                    // On the shared listener a client authenticates before it is placed, so no
                    // virtual cluster's file could be the one it is checked against.
                    throw new ConfigException(where + " is invalid at " + path + ".credentialsFile: needs a listener "
                            + "of its own (on the shared listener, clients authenticate before they are placed)");
                }
                credentialsFiles.put(cluster.name(), base.resolve(credentialsFile));
            }
            List<ValidationRule> own = GatewayValidation.parse(where, path + ".validation",
                    list.get(i).get("validation"), base, registries);
            if (!own.isEmpty()) {
                clusterRules.put(cluster.name(), own);
            }
        }
        VirtualClusters virtualClusters;
        try {
            virtualClusters = new VirtualClusters(clusters);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + " is invalid: " + e.getMessage());
        }
        List<EncryptionRule> encryption = GatewayEncryption.parse(where, "encryption", root.get("encryption"), base,
                System::getenv);
        return new Gateway(virtualClusters, quotas, aclFiles, listeners, brokerPortBases, credentialsFiles, audit,
                new ValidationRules(globalRules, clusterRules, virtualClusters), encryption, sniHostSuffixes,
                GatewayLfsResolve.parse(where, root.get(GatewayLfsResolve.SECTION), virtualClusters));
    }

    private static VirtualCluster cluster(String where, String path, JsonNode node) {
        if (!node.isObject()) {
            throw new ConfigException(where + " is invalid at " + path + ": expected a virtual cluster (name, principals)");
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            String key = fields.next().getKey();
            if (!KEYS.contains(key)) {
                throw new ConfigException(where + " is invalid at " + path + "." + key + ": unknown key (expected "
                        + String.join(", ", KEYS.stream().sorted().toList()) + ")");
            }
        }
        String name = text(where, path + ".name", node.get("name"), true);
        String clusterId = text(where, path + ".clusterId", node.get("clusterId"), false);
        String topicPrefix = text(where, path + ".topicPrefix", node.get("topicPrefix"), false);
        String groupPrefix = text(where, path + ".groupPrefix", node.get("groupPrefix"), false);
        String txnPrefix = text(where, path + ".transactionalIdPrefix", node.get("transactionalIdPrefix"), false);
        String defaultPrefix = name + ".";
        TenantNames names;
        try {
            names = new TenantNames(topicPrefix == null ? defaultPrefix : topicPrefix,
                    groupPrefix == null ? defaultPrefix : groupPrefix, txnPrefix == null ? defaultPrefix : txnPrefix);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + " is invalid at " + path + ": " + e.getMessage());
        }
        if (clusterId != null && !clusterId.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new ConfigException(where + " is invalid at " + path + ".clusterId: '" + clusterId
                    + "' is not a Kafka cluster id (letters, digits, '-' and '_', as Kafka's base64 ids)");
        }
        return new VirtualCluster(name, clusterId == null ? VirtualCluster.derivedClusterId(name) : clusterId, names,
                principals(where, path + ".principals", node.get("principals")));
    }

    /** A virtual cluster's own listener, {@code host:port} with a port of its own (never 0: it is advertised). */
    private static HostPort listener(String where, String path, JsonNode node) {
        String value = text(where, path, node, false);
        if (value == null) {
            return null;
        }
        return HostPort.parse(value).orElseThrow(() -> new ConfigException(where + " is invalid at " + path + ": '"
                + value + "' is not host:port with a port from 1 to 65535 (the port is advertised to the clients)"));
    }

    /** The principals placed in a virtual cluster; none when the key is absent (checked against its listener). */
    private static Set<KafkaPrincipal> principals(String where, String path, JsonNode node) {
        if (node == null) {
            return Set.of();
        }
        if (!node.isArray() || node.isEmpty()) {
            throw new ConfigException(where + " is invalid at " + path
                    + ": expected a list of at least one principal (User:alice)");
        }
        Set<KafkaPrincipal> principals = new LinkedHashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String item = text(where, path + "[" + i + "]", node.get(i), true);
            KafkaPrincipal principal;
            try {
                principal = AclNames.principal(item);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where + " is invalid at " + path + "[" + i + "]: '" + item
                        + "' is not a principal (expected Type:name, such as User:alice)");
            }
            if (principal.getName().equals("*")) {
                throw new ConfigException(where + " is invalid at " + path + "[" + i + "]: a wildcard would place "
                        + "every client in one virtual cluster; name each principal");
            }
            principals.add(principal);
        }
        return principals;
    }

    private static String text(String where, String path, JsonNode node, boolean required) {
        if (node == null || node.isNull()) {
            if (required) {
                throw new ConfigException(where + " is invalid at " + path + ": required");
            }
            return null;
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw new ConfigException(where + " is invalid at " + path + ": expected a non-empty string");
        }
        return node.asText().strip();
    }
}
