package org.kafscale.proxy.core.topology;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What the proxy knows about the cluster behind it, and how to learn more.
 *
 * <p>{@link #snapshot()} is cheap and lock-free: event loops call it per request. The other
 * methods may ask the source (etcd, a Kafka broker) and complete later; callers continue on
 * their own event loop and never block on them.
 */
public interface Topology {

    /** The current snapshot. Never null; {@link TopologySnapshot#EMPTY} before the first read. */
    TopologySnapshot snapshot();

    /**
     * A snapshot that includes the named topics if the cluster has them, creating them where the
     * source supports it and {@code allowAutoCreate} is set. The default answers from memory.
     */
    default CompletionStage<TopologySnapshot> lookupTopics(Collection<String> names, boolean allowAutoCreate) {
        return CompletableFuture.completedFuture(snapshot());
    }

    /**
     * The named topics as the source says now, failing when the source cannot be read (where
     * {@link #lookupTopics} falls back to memory). For checks that must not pass on old data, such
     * as a topic's id after a long LFS upload. The default answers like {@link #lookupTopics}.
     */
    default CompletionStage<TopologySnapshot> readTopics(Collection<String> names) {
        return lookupTopics(names, false);
    }

    /**
     * A snapshot from a read of the source that starts after this call, for a caller that just
     * changed the cluster (created a topic, added partitions) and must not be answered from a read
     * that began before the change. Callers while such a read is queued share it. The default
     * answers from memory, for sources that have nothing to re-read.
     */
    default CompletionStage<TopologySnapshot> refresh() {
        return CompletableFuture.completedFuture(snapshot());
    }

    /**
     * The broker id coordinating a group or transactional id, or -1 when no live broker can be
     * named (the caller answers COORDINATOR_NOT_AVAILABLE).
     */
    CompletionStage<Integer> coordinator(CoordinatorKind kind, String key);

    /** A broker said it does not own this partition: forget the route until the source says again. */
    void invalidatePartition(String topic, int partition);

    /** A broker said it is not this coordinator: forget the route. */
    void invalidateCoordinator(CoordinatorKind kind, String key);
}
