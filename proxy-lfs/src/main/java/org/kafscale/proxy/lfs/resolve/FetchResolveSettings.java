package org.kafscale.proxy.lfs.resolve;

import java.util.List;

/**
 * LFS resolution on Fetch: the rules from {@code KAFSCALE_LFS_PROXY_FETCH_RESOLVE_TOPICS} (the
 * gateway file adds its own), and the bytes of payloads every resolving Fetch together may hold
 * ({@code KAFSCALE_LFS_PROXY_FETCH_RESOLVE_MEMORY_BYTES}).
 *
 * @param rules the topics resolved, for whom; none turns resolution off
 * @param memoryBytes the process budget of payload bytes held while answers are resolved
 */
public record FetchResolveSettings(List<ResolveRule> rules, long memoryBytes) {
    public static final long DEFAULT_MEMORY_BYTES = 256L * 1024 * 1024;
    public static final FetchResolveSettings OFF = new FetchResolveSettings(List.of(), DEFAULT_MEMORY_BYTES);

    public FetchResolveSettings {
        rules = List.copyOf(rules);
        if (memoryBytes < 1) {
            throw new IllegalArgumentException("the memory budget needs at least one byte");
        }
    }

    public boolean isOff() {
        return rules.isEmpty();
    }
}
