package org.kafscale.proxy.core.local;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/** A topology held in memory that records what the responders ask of it. Everything completes at once. */
final class StubTopology implements Topology {

    record Lookup(List<String> names, boolean allowAutoCreate) {
    }

    record CoordinatorQuery(CoordinatorKind kind, String key) {
    }

    private final TopologySnapshot snapshot;
    private TopologySnapshot afterLookup;
    private final Map<String, CompletionStage<Integer>> coordinators = new HashMap<>();
    final List<Lookup> lookups = new ArrayList<>();
    final List<CoordinatorQuery> coordinatorQueries = new ArrayList<>();

    StubTopology(TopologySnapshot snapshot) {
        this.snapshot = snapshot;
        this.afterLookup = snapshot;
    }

    /** Topic lookups answer with {@code snapshot} (as if the source found or created topics). */
    StubTopology answeringLookupsWith(TopologySnapshot snapshot) {
        this.afterLookup = snapshot;
        return this;
    }

    StubTopology withCoordinator(String key, int brokerId) {
        coordinators.put(key, CompletableFuture.completedFuture(brokerId));
        return this;
    }

    StubTopology withFailingCoordinatorLookup(String key) {
        coordinators.put(key, CompletableFuture.failedFuture(new IllegalStateException("source unreachable")));
        return this;
    }

    @Override
    public TopologySnapshot snapshot() {
        return snapshot;
    }

    @Override
    public CompletionStage<TopologySnapshot> lookupTopics(Collection<String> names, boolean allowAutoCreate) {
        lookups.add(new Lookup(List.copyOf(names), allowAutoCreate));
        return CompletableFuture.completedFuture(afterLookup);
    }

    /** The configured coordinator, or -1 (no live coordinator) for keys not configured. */
    @Override
    public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        coordinatorQueries.add(new CoordinatorQuery(kind, key));
        return coordinators.getOrDefault(key, CompletableFuture.completedFuture(-1));
    }

    @Override
    public void invalidatePartition(String topic, int partition) {
    }

    @Override
    public void invalidateCoordinator(CoordinatorKind kind, String key) {
    }
}
