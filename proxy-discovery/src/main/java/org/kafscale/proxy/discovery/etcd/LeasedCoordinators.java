package org.kafscale.proxy.discovery.etcd;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.discovery.CoordinatorLookup;

/**
 * Group coordinators from KafScale's group leases, with a broker's FindCoordinator
 * ({@link CoordinatorLookup}) for a group without a lease and for every transactional id (KafScale
 * leases none). A lease wins while its broker has not refused the role.
 *
 * <p>A refusal outlives reads for as long as etcd still names the broker that refused, so a stale
 * lease cannot win again at every read; once the lease moves or goes, the refusal is dropped and
 * etcd's word wins.
 */
final class LeasedCoordinators {
    private final Supplier<TopologySnapshot> snapshot;
    private final CoordinatorLookup lookup;
    private volatile Leases leases = new Leases(Map.of(), new ConcurrentHashMap<>());

    /**
     * The leases of one read and the groups whose leased broker refused the role, with that broker.
     * {@code refused} is the one mutable part (O(1) to add on an event loop; bounded by the leases listed).
     */
    private record Leases(Map<String, Integer> owners, Map<String, Integer> refused) {
        /** The refusals that still hold under {@code next}, the leases of a new read. */
        Leases next(Map<String, Integer> next) {
            Map<String, Integer> kept = new ConcurrentHashMap<>();
            refused.forEach((group, refusedBy) -> {
                if (refusedBy.equals(next.get(group))) {
                    kept.put(group, refusedBy);
                }
            });
            return new Leases(next, kept);
        }
    }

    /**
     * @param snapshot the topology in force: a lease counts only while its broker is listed
     * @param lookup asks brokers for coordinators that have no lease; null for none (-1)
     */
    LeasedCoordinators(Supplier<TopologySnapshot> snapshot, CoordinatorLookup lookup) {
        this.snapshot = snapshot;
        this.lookup = lookup;
    }

    /** The group leases of a new read replace the last ones. */
    void leased(Map<String, Integer> groupLeases) {
        leases = leases.next(groupLeases);
    }

    CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
        Leases current = leases;
        if (!snapshot.get().hasBrokers()) {
            return CompletableFuture.completedFuture(-1);
        }
        Integer owner = leasedOwner(current, kind, key);
        if (owner != null && !owner.equals(current.refused().get(key))) {
            return CompletableFuture.completedFuture(owner);
        }
        return lookup == null ? CompletableFuture.completedFuture(-1) : lookup.coordinator(kind, key);
    }

    /**
     * O(1) on the caller's event loop. A refused lease is set aside until etcd names another
     * broker; a looked-up coordinator is looked up again, that broker asked last.
     *
     * @return true on a lease's first refusal: etcd should be read again (it may know the new owner)
     */
    boolean invalidate(CoordinatorKind kind, String key) {
        Leases current = leases;
        Integer owner = leasedOwner(current, kind, key);
        boolean firstRefusal = owner != null && current.refused().put(key, owner) == null;
        if (lookup != null) {
            lookup.invalidate(kind, key, owner == null ? -1 : owner);
        }
        return firstRefusal;
    }

    /** The live broker holding {@code key}'s group lease, or null (transactional ids have no lease in KafScale). */
    private Integer leasedOwner(Leases current, CoordinatorKind kind, String key) {
        Integer owner = kind == CoordinatorKind.GROUP ? current.owners().get(key) : null;
        return owner != null && snapshot.get().brokers().containsKey(owner) ? owner : null;
    }
}
