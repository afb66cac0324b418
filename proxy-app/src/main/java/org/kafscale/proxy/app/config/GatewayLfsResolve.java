package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.lfs.resolve.ResolveRule;

/**
 * Reads the gateway file's {@code lfsResolve} rules, LFS resolution on Fetch for chosen clients
 * (beside {@code KAFSCALE_LFS_PROXY_FETCH_RESOLVE_TOPICS}, which is for every client):
 * <pre>
 * lfsResolve:
 *   - topics: "media\\..*"            # a regular expression over the whole real topic name
 *     principals: ["User:alice"]       # optional: only these clients get payloads
 *     virtualCluster: team-a           # optional: only connections placed in this virtual cluster
 * </pre>
 * A client a rule covers gets payloads; any other gets the envelopes. Topic names are the real
 * cluster's (a virtual cluster's topics with its prefix), as in {@code encryption}.
 */
final class GatewayLfsResolve {
    static final String SECTION = "lfsResolve";
    private static final Set<String> KEYS = Set.of("topics", "principals", "virtualCluster");

    private GatewayLfsResolve() {
    }

    static List<ResolveRule> parse(String where, JsonNode node, VirtualClusters clusters) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw GatewayQuotas.invalid(where, SECTION, "expected a list of rules (topics, principals, virtualCluster)");
        }
        List<ResolveRule> rules = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            rules.add(rule(where, SECTION + "[" + i + "]", node.get(i), clusters));
        }
        return rules;
    }

    private static ResolveRule rule(String where, String path, JsonNode node, VirtualClusters clusters) {
        GatewayQuotas.checkKeys(where, path, node, KEYS);
        JsonNode topics = node.get("topics");
        if (topics == null || !topics.isTextual() || topics.asText().isEmpty()) {
            throw GatewayQuotas.invalid(where, path + ".topics", "required: a regular expression over topic names");
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(topics.asText());
        } catch (PatternSyntaxException e) {
            throw GatewayQuotas.invalid(where, path + ".topics", "not a regular expression: " + e.getDescription());
        }
        Optional<String> cluster = Optional.empty();
        JsonNode named = node.get("virtualCluster");
        if (named != null && !named.isNull()) {
            if (!named.isTextual() || clusters.named(named.asText()).isEmpty()) {
                throw GatewayQuotas.invalid(where, path + ".virtualCluster", "expected the name of a virtual cluster "
                        + "of this file");
            }
            cluster = Optional.of(named.asText());
        }
        return new ResolveRule(pattern, GatewayEncryption.allowed(where, path + ".principals", node.get("principals")),
                cluster);
    }
}
