package org.kafscale.proxy.core.security.authz;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * One request's view of authorization: who asks, the rules in force when it arrived, the topology
 * (to name topics a request gives by id), and the resource types refused so far (for the metric).
 */
public final class Access {
    /** The name Kafka gives the one CLUSTER resource. */
    static final String CLUSTER_NAME = "kafka-cluster";

    private final KafkaPrincipal principal;
    /** The client's address (a PROXY protocol header's source, else the socket's); null when unknown. */
    private final InetAddress host;
    private final AclRules rules;
    private final TopologySnapshot topology;
    private final Set<ResourceType> refused;
    /** What was refused, for the audit trail: at most {@link #MAX_DENIALS}, so a request naming many stays small. */
    private final List<AuthorizationObserver.Denial> denials = new ArrayList<>();

    /** The most refused resources one request reports. */
    static final int MAX_DENIALS = 100;

    /** A client whose address no rule can name: only rules for every host ({@code *}) apply to it. */
    Access(KafkaPrincipal principal, AclRules rules, TopologySnapshot topology) {
        this(principal, null, rules, topology);
    }

    /** @param host the client's address, which rules with a {@code host} are compared to; null when unknown */
    Access(KafkaPrincipal principal, InetAddress host, AclRules rules, TopologySnapshot topology) {
        this(principal, host, rules, topology, EnumSet.noneOf(ResourceType.class));
    }

    private Access(KafkaPrincipal principal, InetAddress host, AclRules rules, TopologySnapshot topology,
                   Set<ResourceType> refused) {
        this.principal = principal;
        this.host = host;
        this.rules = rules;
        this.topology = topology;
        this.refused = refused;
    }

    /**
     * The same checks, not counted as refusals: for listings (every topic, every group), which
     * leave out what the principal may not see as Kafka does, without a denial.
     */
    Access quietly() {
        return new Access(principal, host, rules, topology, EnumSet.noneOf(ResourceType.class));
    }

    KafkaPrincipal principal() {
        return principal;
    }

    boolean topic(String name, AclOperation operation) {
        return check(ResourceType.TOPIC, name, operation);
    }

    boolean group(String name, AclOperation operation) {
        return check(ResourceType.GROUP, name, operation);
    }

    boolean transactionalId(String name, AclOperation operation) {
        return check(ResourceType.TRANSACTIONAL_ID, name, operation);
    }

    boolean cluster(AclOperation operation) {
        return check(ResourceType.CLUSTER, CLUSTER_NAME, operation);
    }

    /** Kafka's test for an idempotent producer: IdempotentWrite on the cluster, or Write on some topic. */
    boolean idempotentWrite() {
        if (rules.allows(principal, host, ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.IDEMPOTENT_WRITE)
                || rules.allowsAny(principal, host, ResourceType.TOPIC, AclOperation.WRITE)) {
            return true;
        }
        deny(ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.IDEMPOTENT_WRITE);
        return false;
    }

    /**
     * Whether {@code operation} on the topic a request names (by name, or by id from v13 of
     * Produce and Fetch) is allowed; a topic id the topology does not know is refused.
     */
    boolean topic(String name, Uuid id, AclOperation operation) {
        return topicName(name, id).map(n -> topic(n, operation)).orElseGet(() -> {
            deny(ResourceType.TOPIC, id == null ? name : id.toString(), operation);
            return false;
        });
    }

    /** The topic's name: the one given, else the one the topology has for its id. */
    Optional<String> topicName(String name, Uuid id) {
        if (name != null && !name.isEmpty()) {
            return Optional.of(name);
        }
        if (id == null || Uuid.ZERO_UUID.equals(id)) {
            return Optional.empty();
        }
        return topology.topic(id).map(TopicLayout::name);
    }

    /** Whether the topology knows a topic of this name (one a request may make a broker create if not). */
    boolean topicExists(String name) {
        return topology.topic(name).isPresent();
    }

    /** The names of every topic the topology knows. */
    Set<String> topicNames() {
        return topology.topics().keySet();
    }

    /** The resource types refused while this request was checked. */
    Set<ResourceType> refused() {
        return refused;
    }

    private boolean check(ResourceType type, String name, AclOperation operation) {
        if (name != null && rules.allows(principal, host, type, name, operation)) {
            return true;
        }
        deny(type, name, operation);
        return false;
    }

    private void deny(ResourceType type, String name, AclOperation operation) {
        refused.add(type);
        if (denials.size() < MAX_DENIALS) {
            denials.add(new AuthorizationObserver.Denial(type, name, operation));
        }
    }

    /** Forgets the refusals so far: checks that only probed (Kafka's CREATE fallback) are no denial. */
    void forgetRefusals() {
        refused.clear();
        denials.clear();
    }

    /** The resources refused while this request was checked, each with its operation. */
    List<AuthorizationObserver.Denial> denials() {
        return denials;
    }
}
