package org.kafscale.proxy.core.tenant;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * One request of a virtual cluster's client, as its rewrites see it: the tenant's names, its
 * cluster id, and which topic ids are its own. A topic id of another tenant's topic (or one the
 * proxy does not know) is not sent as it is: it becomes a random id no broker knows, so the broker
 * answers UNKNOWN_TOPIC_ID, and the answer gets the client's id back ({@link #clientTopicId}).
 * Made per request, on its connection's event loop; the request's rewrite and its answer's share it.
 */
public final class TenantScope {
    private final VirtualCluster cluster;
    private final TopologySnapshot snapshot;
    private final TenantQuotas quotas;
    /** The ids sent in place of foreign ones, to the ids the client sent. */
    private Map<Uuid, Uuid> substitutes;
    /** What the request's rewrite left for its answer's: what the answer alone does not say. */
    private Object kept;

    public TenantScope(VirtualCluster cluster, TopologySnapshot snapshot) {
        this(cluster, snapshot, TenantQuotas.NONE);
    }

    /** @param quotas the virtual cluster's quotas, as the gateway file sets them and the proxy enforces them */
    public TenantScope(VirtualCluster cluster, TopologySnapshot snapshot, TenantQuotas quotas) {
        this.cluster = cluster;
        this.snapshot = snapshot;
        this.quotas = quotas;
    }

    /** The virtual cluster's quotas, as the proxy enforces them. */
    public TenantQuotas quotas() {
        return quotas;
    }

    public TenantNames names() {
        return cluster.names();
    }

    /** The id the tenant's clients know their cluster by. */
    public String clusterId() {
        return cluster.clusterId();
    }

    public VirtualCluster cluster() {
        return cluster;
    }

    /** The topology the request is judged against, read once for it. */
    public TopologySnapshot snapshot() {
        return snapshot;
    }

    /** Whether {@code id} names one of this tenant's topics, as far as the proxy knows. */
    public boolean ownsTopicId(Uuid id) {
        return snapshot.topic(id).map(topic -> cluster.names().ownsTopic(topic.name())).orElse(false);
    }

    /** The id to send for the client's {@code id}: its own, or a substitute no broker knows. The zero id stays. */
    public Uuid topicId(Uuid id) {
        if (id == null || Uuid.ZERO_UUID.equals(id) || ownsTopicId(id)) {
            return id;
        }
        if (substitutes == null) {
            substitutes = new HashMap<>();
        }
        for (Map.Entry<Uuid, Uuid> sent : substitutes.entrySet()) {
            if (sent.getValue().equals(id)) {
                return sent.getKey();
            }
        }
        Uuid substitute = Uuid.randomUuid();
        substitutes.put(substitute, id);
        return substitute;
    }

    /**
     * Leaves {@code state} for the answer's rewrite: what the answer does not say itself (the key
     * type a FindCoordinator asked for, the ACL filters a client sent before they were rewritten).
     */
    public void keep(Object state) {
        kept = state;
    }

    /** What the request's rewrite kept, as {@code type}; null if it kept nothing. */
    public <T> T kept(Class<T> type) {
        return type.cast(kept);
    }

    /** Whether a topic id the client sent went on as a substitute, which its answer must undo. */
    public boolean substitutedTopicIds() {
        return substitutes != null && !substitutes.isEmpty();
    }

    /** The client's id for an id in the answer: the one it sent where a substitute went instead. */
    public Uuid clientTopicId(Uuid id) {
        return substitutes == null ? id : substitutes.getOrDefault(id, id);
    }
}
