package org.kafscale.proxy.core.validation;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;

/**
 * Every validation rule of the gateway file: the global ones, over the real topic names, and each
 * virtual cluster's, over its clients' own names. A topic is checked by the first rule that
 * covers it, the virtual cluster's before the global ones: both are the operator's (the gateway
 * file), and a virtual cluster's rule is the more specific one for its topics.
 *
 * @param global the rules over real topic names, in the file's order
 * @param byCluster each virtual cluster's rules by its name, in the file's order
 * @param clusters the virtual clusters, to find a connection's topic prefix
 */
public record ValidationRules(List<ValidationRule> global, Map<String, List<ValidationRule>> byCluster,
                              VirtualClusters clusters) {
    public static final ValidationRules NONE = new ValidationRules(List.of(), Map.of(), VirtualClusters.NONE);

    public ValidationRules {
        global = List.copyOf(global);
        byCluster = Map.copyOf(byCluster);
    }

    public boolean isEmpty() {
        return global.isEmpty() && byCluster.values().stream().allMatch(List::isEmpty);
    }

    /**
     * The rule for records a client of {@code virtualCluster} (where the tenant policy placed its
     * connection, by principal or by listener) writes to {@code topic} (the real name, as the chain
     * sees it after the tenant policy), if any.
     */
    Optional<ValidationRule> ruleFor(Optional<String> virtualCluster, String topic) {
        if (!byCluster.isEmpty() && virtualCluster.isPresent()) {
            Optional<VirtualCluster> cluster = clusters.named(virtualCluster.get());
            if (cluster.isPresent() && cluster.get().names().ownsTopic(topic)) {
                String own = cluster.get().names().clientTopic(topic);
                for (ValidationRule rule : byCluster.getOrDefault(cluster.get().name(), List.of())) {
                    if (rule.covers(own)) {
                        return Optional.of(rule);
                    }
                }
            }
        }
        for (ValidationRule rule : global) {
            if (rule.covers(topic)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }
}
