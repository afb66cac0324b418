package org.kafscale.proxy.lfs.resolve;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Which fetched topics have their envelopes resolved: those whose real name {@code topics}
 * matches whole, for the principals named (every principal when none is), for connections placed
 * in the virtual cluster named (every connection when none is).
 *
 * @param topics a regular expression over the whole real topic name
 * @param principals who gets payloads; empty for everyone
 * @param virtualCluster the virtual cluster whose connections get payloads; empty for every connection
 */
public record ResolveRule(Pattern topics, Set<KafkaPrincipal> principals, Optional<String> virtualCluster) {
    public ResolveRule {
        principals = Set.copyOf(principals);
    }

    /** A rule for everyone (the {@code KAFSCALE_LFS_PROXY_FETCH_RESOLVE_TOPICS} kind). */
    public static ResolveRule forEveryone(Pattern topics) {
        return new ResolveRule(topics, Set.of(), Optional.empty());
    }

    boolean covers(String topic, KafkaPrincipal principal, Optional<String> cluster) {
        return topic != null && topics.matcher(topic).matches()
                && (principals.isEmpty() || principals.contains(principal))
                && (virtualCluster.isEmpty() || virtualCluster.equals(cluster));
    }
}
