package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.quota.QuotaLimits;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.codec.AclNames;

/**
 * Reads the {@code quotas} of one virtual cluster in the gateway file:
 * <pre>
 * quotas:
 *   produceBytesPerSecond: 10485760   # the whole virtual cluster
 *   fetchBytesPerSecond: 20971520
 *   requestPercentage: 50             # of one event-loop thread
 *   perPrincipal:                      # each principal, unless named below
 *     produceBytesPerSecond: 1048576
 *   principals:
 *     "User:alice":                    # a rate absent here is perPrincipal's
 *       produceBytesPerSecond: 4194304
 * </pre>
 * Each error names the path in the file.
 */
final class GatewayQuotas {
    private static final String PRODUCE = "produceBytesPerSecond";
    private static final String FETCH = "fetchBytesPerSecond";
    private static final String REQUEST = "requestPercentage";
    private static final Set<String> RATES = Set.of(PRODUCE, FETCH, REQUEST);
    private static final Set<String> KEYS = Set.of(PRODUCE, FETCH, REQUEST, "perPrincipal", "principals");

    private GatewayQuotas() {
    }

    /**
     * @param principals the virtual cluster's principals: a quota of anyone else could never apply
     */
    static TenantQuotas parse(String where, String path, JsonNode node, Set<KafkaPrincipal> principals) {
        if (node == null || node.isNull()) {
            return TenantQuotas.NONE;
        }
        checkKeys(where, path, node, KEYS);
        QuotaLimits cluster = limits(where, path, node, QuotaLimits.NONE);
        JsonNode each = node.get("perPrincipal");
        QuotaLimits perPrincipal = QuotaLimits.NONE;
        if (each != null && !each.isNull()) {
            checkKeys(where, path + ".perPrincipal", each, RATES);
            perPrincipal = limits(where, path + ".perPrincipal", each, QuotaLimits.NONE);
        }
        Map<KafkaPrincipal, QuotaLimits> named = new HashMap<>();
        JsonNode listed = node.get("principals");
        if (listed != null && !listed.isNull()) {
            if (!listed.isObject()) {
                throw invalid(where, path + ".principals", "expected a map of principal to rates (\"User:alice\": {...})");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = listed.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                String at = path + ".principals." + entry.getKey();
                KafkaPrincipal principal;
                try {
                    principal = AclNames.principal(entry.getKey());
                } catch (IllegalArgumentException e) {
                    throw invalid(where, at, "'" + entry.getKey() + "' is not a principal (expected Type:name)");
                }
                if (!principals.contains(principal)) {
                    throw invalid(where, at, principal + " is not a principal of this virtual cluster");
                }
                checkKeys(where, at, entry.getValue(), RATES);
                named.put(principal, limits(where, at, entry.getValue(), perPrincipal));
            }
        }
        return new TenantQuotas(cluster, perPrincipal, named);
    }

    /** The rates at {@code node}; a rate it does not set is {@code absent}'s. */
    private static QuotaLimits limits(String where, String path, JsonNode node, QuotaLimits absent) {
        return new QuotaLimits(rate(where, path + "." + PRODUCE, node.get(PRODUCE), absent.produceBytesPerSecond()),
                rate(where, path + "." + FETCH, node.get(FETCH), absent.fetchBytesPerSecond()),
                percentage(where, path + "." + REQUEST, node.get(REQUEST), absent.requestPercentage()));
    }

    private static double percentage(String where, String path, JsonNode node, double absent) {
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isNumber() || node.asDouble() <= 0) {
            throw invalid(where, path, "expected a positive percentage of one event-loop thread's time (100 is a whole thread)");
        }
        return node.asDouble();
    }

    private static long rate(String where, String path, JsonNode node, long absent) {
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.canConvertToLong() || !node.isIntegralNumber() || node.asLong() <= 0) {
            throw invalid(where, path, "expected a positive whole number of bytes per second");
        }
        return node.asLong();
    }

    static void checkKeys(String where, String path, JsonNode node, Set<String> keys) {
        if (!node.isObject()) {
            throw invalid(where, path, "expected a map of " + String.join(", ", keys.stream().sorted().toList()));
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!keys.contains(key)) {
                throw invalid(where, path + "." + key, "unknown key (expected "
                        + String.join(", ", keys.stream().sorted().toList()) + ")");
            }
        }
    }

    static ConfigException invalid(String where, String path, String problem) {
        return new ConfigException(where + " is invalid at " + path + ": " + problem);
    }
}
