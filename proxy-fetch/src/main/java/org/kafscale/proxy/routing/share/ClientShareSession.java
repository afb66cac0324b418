package org.kafscale.proxy.routing.share;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;

/**
 * One client's share session (one group member on one client connection) and the proxy's sessions
 * with the brokers behind it. The client keeps one session per node it knows, with one epoch
 * sequence; each broker keeps its own session for the member, with its own. So the proxy keeps
 * which broker holds each of the client's partitions and each broker session's next epoch, and
 * turns each client request into one request per broker at that broker's epoch, naming what was
 * added and forgotten there.
 *
 * <p>Acknowledgements go to the broker whose session holds the partition: the one that delivered
 * (and locked) the records. A partition whose owner moved is forgotten at the old broker and added
 * at the new one, but not while the request acknowledges records of it: those acknowledgements go
 * to the old broker, and the partition moves with the client's next ShareFetch.
 *
 * <p>A broker session whose request failed, or whose broker refused the session, is forgotten: the
 * next request opens it again (epoch 0) with every partition placed there. Confined to the client
 * connection's event loop; the caller sends one request at a time ({@link #settled} before the next
 * plan), as the epochs require.
 */
final class ClientShareSession {
    /** The most partitions one session may hold; a client naming more is closed (bounded state). */
    static final int MAX_PARTITIONS = 65_536;

    /** The partitions in the client's session, as the client sees it. */
    private final Set<SharedPartition> partitions = new LinkedHashSet<>();
    /** The broker whose session holds each partition; a partition without an owner is in none. */
    private final Map<SharedPartition, Integer> placement = new HashMap<>();
    /** The next epoch of each open broker session; a broker not here has none open. */
    private final Map<Integer, Integer> nextEpochs = new TreeMap<>();

    /** Where partitions are now, and whether a topic id is known at all. */
    interface Owners {
        /** The real id of the partition's owner, or -1 when none is known now. */
        int owner(SharedPartition partition);

        boolean topicKnown(SharedPartition partition);
    }

    /**
     * A client ShareFetch.
     *
     * @param opens the client's epoch is 0: {@code named} is its whole session
     * @param closes the client's epoch is -1: every broker session closes after its acknowledgements
     * @param named the partitions the request names, in order, with their acknowledgement batches
     * @param forgotten the partitions it forgets
     */
    SharePlan planFetch(boolean opens, boolean closes, Map<SharedPartition, List<AckBatch>> named,
                        Set<SharedPartition> forgotten, Owners owners) {
        Map<SharedPartition, Errors> unknown = new LinkedHashMap<>();
        if (opens) {
            partitions.clear();
        } else {
            partitions.removeAll(forgotten);
        }
        for (SharedPartition p : named.keySet()) {
            if (owners.topicKnown(p) || placement.containsKey(p)) {
                partitions.add(p);
            } else {
                unknown.put(p, Errors.UNKNOWN_TOPIC_ID);
            }
        }
        if (partitions.size() > MAX_PARTITIONS) {
            throw new IllegalArgumentException("a share session of more than " + MAX_PARTITIONS + " partitions");
        }
        Map<Integer, Part> parts = new TreeMap<>();
        Map<SharedPartition, Errors> refused = new LinkedHashMap<>();
        Set<SharedPartition> pinned = routeAcks(named, parts, refused);
        if (closes) {
            return new SharePlan(closeAll(parts), refused, unknown);
        }
        for (SharedPartition p : new ArrayList<>(placement.keySet())) {
            if (!partitions.contains(p) && !pinned.contains(p)) {
                forgetAt(placement.remove(p), p, parts);
            }
        }
        for (SharedPartition p : partitions) {
            int want = owners.owner(p);
            Integer at = placement.get(p);
            if ((at != null && at == want) || pinned.contains(p)) {
                continue;
            }
            if (at != null) {
                forgetAt(at, p, parts);
            }
            if (want >= 0) {
                placement.put(p, want);
                part(parts, want).named.putIfAbsent(p, List.of());
            } else {
                placement.remove(p);
            }
        }
        Set<Integer> brokers = new TreeSet<>(nextEpochs.keySet());
        brokers.addAll(placement.values());
        List<BrokerShare> out = new ArrayList<>();
        for (int broker : brokers) {
            Part part = part(parts, broker);
            List<SharedPartition> held = heldAt(broker);
            Integer epoch = nextEpochs.get(broker);
            if (epoch == null) {
                // Opening (again): the broker's session is everything placed there, and no
                // acknowledgements (routeAcks refused those: their session is gone).
                Map<SharedPartition, List<AckBatch>> all = new LinkedHashMap<>();
                held.forEach(p -> all.put(p, List.of()));
                out.add(new BrokerShare(broker, BrokerShare.OPEN_EPOCH, all, List.of()));
            } else if (held.isEmpty()) {
                out.add(new BrokerShare(broker, BrokerShare.FINAL_EPOCH, part.named, List.of()));
            } else {
                out.add(new BrokerShare(broker, epoch, part.named, part.forgotten));
            }
        }
        return new SharePlan(out, refused, unknown);
    }

    /**
     * A client ShareAcknowledge: each broker holding acknowledged partitions gets them at its
     * epoch; with {@code closes} every open broker session closes.
     */
    SharePlan planAcknowledge(boolean closes, Map<SharedPartition, List<AckBatch>> acks) {
        Map<Integer, Part> parts = new TreeMap<>();
        Map<SharedPartition, Errors> refused = new LinkedHashMap<>();
        routeAcks(acks, parts, refused);
        if (closes) {
            return new SharePlan(closeAll(parts), refused, Map.of());
        }
        List<BrokerShare> out = new ArrayList<>();
        parts.forEach((broker, part) -> out.add(new BrokerShare(broker, nextEpochs.get(broker), part.named, List.of())));
        return new SharePlan(out, refused, Map.of());
    }

    /**
     * A broker's answer to its part is in: {@code accepted} when the broker took the request in
     * its session (no top-level error), so its epoch moves on; otherwise its session is dropped
     * and the next request opens it again.
     */
    void settled(BrokerShare part, boolean accepted) {
        if (accepted && !part.closes()) {
            nextEpochs.put(part.broker(), part.epoch() == Integer.MAX_VALUE ? 1 : part.epoch() + 1);
        } else {
            nextEpochs.remove(part.broker());
        }
    }

    /** Acknowledgements to the broker holding each partition, if its session is open; the partitions that got a broker. */
    private Set<SharedPartition> routeAcks(Map<SharedPartition, List<AckBatch>> named, Map<Integer, Part> parts,
                                           Map<SharedPartition, Errors> refused) {
        Set<SharedPartition> pinned = new LinkedHashSet<>();
        named.forEach((p, batches) -> {
            if (batches.isEmpty()) {
                return;
            }
            Integer at = placement.get(p);
            if (at == null || !nextEpochs.containsKey(at)) {
                refused.put(p, Errors.SHARE_SESSION_NOT_FOUND);
                return;
            }
            part(parts, at).named.put(p, batches);
            pinned.add(p);
        });
        return pinned;
    }

    /** The client closes: every open broker session closes, with its acknowledgements; nothing is kept. */
    private List<BrokerShare> closeAll(Map<Integer, Part> parts) {
        List<BrokerShare> out = new ArrayList<>();
        for (int broker : nextEpochs.keySet()) {
            out.add(new BrokerShare(broker, BrokerShare.FINAL_EPOCH, part(parts, broker).named, List.of()));
        }
        partitions.clear();
        placement.clear();
        return out;
    }

    private void forgetAt(int broker, SharedPartition p, Map<Integer, Part> parts) {
        if (nextEpochs.containsKey(broker)) {
            part(parts, broker).forgotten.add(p);
        }
    }

    private List<SharedPartition> heldAt(int broker) {
        List<SharedPartition> held = new ArrayList<>();
        for (SharedPartition p : partitions) {
            if (placement.getOrDefault(p, -1) == broker) {
                held.add(p);
            }
        }
        // A partition the client forgot while acknowledging it stays at its broker for this request.
        placement.forEach((p, b) -> {
            if (b == broker && !partitions.contains(p)) {
                held.add(p);
            }
        });
        return held;
    }

    private static Part part(Map<Integer, Part> parts, int broker) {
        return parts.computeIfAbsent(broker, b -> new Part());
    }

    /** A broker's part while it is planned. */
    private static final class Part {
        final Map<SharedPartition, List<AckBatch>> named = new LinkedHashMap<>();
        final List<SharedPartition> forgotten = new ArrayList<>();
    }
}
