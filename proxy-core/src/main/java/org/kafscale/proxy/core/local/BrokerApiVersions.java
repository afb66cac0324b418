package org.kafscale.proxy.core.local;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;

/**
 * What the known brokers report in their own ApiVersions, kept as the per-API range every one of
 * them supports, so clients never negotiate a version some broker cannot serve.
 */
public final class BrokerApiVersions {

    /** Per-broker reports and their intersection, replaced together. */
    private record State(Map<Integer, ApiVersionsResponseData> byBroker, Map<Short, ApiVersion> common) {
    }

    private final AtomicReference<State> state = new AtomicReference<>(new State(Map.of(), Map.of()));

    /** Records a broker's ApiVersions answer. */
    public void update(int brokerId, ApiVersionsResponseData versions) {
        state.updateAndGet(s -> {
            Map<Integer, ApiVersionsResponseData> byBroker = new HashMap<>(s.byBroker());
            byBroker.put(brokerId, versions);
            return new State(Map.copyOf(byBroker), intersect(byBroker));
        });
    }

    /** Forgets brokers that left the cluster. */
    public void retainOnly(java.util.Collection<Integer> brokerIds) {
        state.updateAndGet(s -> {
            Map<Integer, ApiVersionsResponseData> byBroker = new HashMap<>(s.byBroker());
            if (!byBroker.keySet().retainAll(brokerIds)) {
                return s;
            }
            return new State(Map.copyOf(byBroker), intersect(byBroker));
        });
    }

    public boolean knows(int brokerId) {
        return state.get().byBroker().containsKey(brokerId);
    }

    /** Whether any broker has reported yet; before that the proxy advertises its own ranges. */
    public boolean anyReported() {
        return !state.get().byBroker().isEmpty();
    }

    /** The range every reporting broker supports for an API; empty when one of them lacks it. */
    public Optional<ApiVersion> common(short apiKey) {
        return Optional.ofNullable(state.get().common().get(apiKey));
    }

    private static Map<Short, ApiVersion> intersect(Map<Integer, ApiVersionsResponseData> byBroker) {
        Map<Short, ApiVersion> common = null;
        for (ApiVersionsResponseData data : byBroker.values()) {
            Map<Short, ApiVersion> next = new HashMap<>();
            for (ApiVersion v : data.apiKeys()) {
                ApiVersion prior = common == null ? v : common.get(v.apiKey());
                if (prior == null) {
                    continue;
                }
                short min = (short) Math.max(prior.minVersion(), v.minVersion());
                short max = (short) Math.min(prior.maxVersion(), v.maxVersion());
                if (min <= max) {
                    next.put(v.apiKey(), new ApiVersion().setApiKey(v.apiKey()).setMinVersion(min).setMaxVersion(max));
                }
            }
            common = next;
        }
        return common == null ? Map.of() : Map.copyOf(common);
    }
}
