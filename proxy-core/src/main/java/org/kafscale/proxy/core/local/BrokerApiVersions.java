package org.kafscale.proxy.core.local;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;

/**
 * What the known brokers report in their own ApiVersions, kept as the per-API range every one of
 * them supports and the features they share ({@link ClusterFeatures}), so clients never negotiate
 * a version or feature level some broker cannot serve.
 */
public final class BrokerApiVersions {

    /** Per-broker reports and their intersection, replaced together. */
    private record State(Map<Integer, ApiVersionsResponseData> byBroker, Map<Short, ApiVersion> common,
                         ClusterFeatures features) {
        static State of(Map<Integer, ApiVersionsResponseData> byBroker) {
            return new State(Map.copyOf(byBroker), intersect(byBroker), ClusterFeatures.of(byBroker.values()));
        }
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.of(Map.of()));
    /** Completes at the first report ever, for ApiVersions answers held until then. */
    private final CompletableFuture<Void> firstReport = new CompletableFuture<>();

    /** Records a broker's ApiVersions answer. */
    public void update(int brokerId, ApiVersionsResponseData versions) {
        state.updateAndGet(s -> {
            Map<Integer, ApiVersionsResponseData> byBroker = new HashMap<>(s.byBroker());
            byBroker.put(brokerId, versions);
            return State.of(byBroker);
        });
        firstReport.complete(null);
    }

    /**
     * Whether {@code versions} says something new about the broker (a restart with other
     * versions, a feature finalized since); the finalized epoch alone is no news, it is the
     * metadata log's offset and moves on by itself.
     */
    public boolean differs(int brokerId, ApiVersionsResponseData versions) {
        ApiVersionsResponseData known = state.get().byBroker().get(brokerId);
        return known == null || !withoutEpoch(known).equals(withoutEpoch(versions));
    }

    private static ApiVersionsResponseData withoutEpoch(ApiVersionsResponseData versions) {
        return versions.duplicate().setFinalizedFeaturesEpoch(-1).setThrottleTimeMs(0);
    }

    /** Completes when the first broker has reported (at once if one has). */
    public CompletionStage<Void> firstReport() {
        return firstReport;
    }

    /** Forgets brokers that left the cluster. */
    public void retainOnly(java.util.Collection<Integer> brokerIds) {
        state.updateAndGet(s -> {
            Map<Integer, ApiVersionsResponseData> byBroker = new HashMap<>(s.byBroker());
            if (!byBroker.keySet().retainAll(brokerIds)) {
                return s;
            }
            return State.of(byBroker);
        });
    }

    /** The brokers whose reports are recorded. */
    public Set<Integer> reporting() {
        return state.get().byBroker().keySet();
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

    /** The features every reporting broker shares; none before a report. */
    public ClusterFeatures features() {
        return state.get().features();
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
