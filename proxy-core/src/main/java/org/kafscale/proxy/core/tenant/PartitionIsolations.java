package org.kafscale.proxy.core.tenant;

import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.Entries;

/**
 * The admin APIs about topics' partitions in a virtual cluster (their producers, leaders and
 * replicas): topic names get the tenant's prefix and answers give the client's back. Broker ids
 * are the real cluster's, as every tenant sees the same brokers. A request that stands for every
 * partition of the cluster either keeps to the tenant's in its answer or, where it would act on
 * them all, is refused.
 */
public final class PartitionIsolations {

    public static final Isolation DESCRIBE_PRODUCERS = Isolation.rewritten(DescribeProducersRequestData.class,
            (q, s) -> q.topics().forEach(t -> t.setName(s.names().topic(t.name()))),
            DescribeProducersResponseData.class, (a, s) -> a.topics().forEach(t -> {
                t.setName(s.names().clientTopic(t.name()));
                t.partitions().forEach(p -> p.setErrorMessage(s.names().scrub(p.errorMessage())));
            }), "topic names prefixed, the answer's back");

    public static final Isolation ELECT_LEADERS = Isolation.rewritten(ElectLeadersRequestData.class, (q, s) -> {
        if (q.topicPartitions() == null) {
            throw new TenantRefusal(Errors.CLUSTER_AUTHORIZATION_FAILED,
                    "an election over every partition would reach the real cluster's");
        }
        Entries.rename(q.topicPartitions(), t -> t.setTopic(s.names().topic(t.topic())));
    }, ElectLeadersResponseData.class, (a, s) -> a.replicaElectionResults().forEach(t -> {
        t.setTopic(s.names().clientTopic(t.topic()));
        t.partitionResult().forEach(p -> p.setErrorMessage(s.names().scrub(p.errorMessage())));
    }), "topic names prefixed, the answer's back; an election over every partition (no topics named) is "
            + "answered CLUSTER_AUTHORIZATION_FAILED and not sent, as it would reach the real cluster's");

    public static final Isolation LIST_PARTITION_REASSIGNMENTS = Isolation.rewritten(
            ListPartitionReassignmentsRequestData.class, (q, s) -> {
                if (q.topics() != null) {
                    q.topics().forEach(t -> t.setName(s.names().topic(t.name())));
                }
            }, ListPartitionReassignmentsResponseData.class, (a, s) -> {
                a.setErrorMessage(s.names().scrub(a.errorMessage()));
                Entries.keepRenamed(a.topics(), t -> s.names().ownsTopic(t.name()),
                        t -> t.setName(s.names().clientTopic(t.name())));
            }, "topic names prefixed; asked for every reassignment (no topics named), the answer keeps the "
                    + "tenant's topics, names back");

    public static final Isolation ALTER_PARTITION_REASSIGNMENTS = Isolation.rewritten(
            AlterPartitionReassignmentsRequestData.class,
            (q, s) -> q.topics().forEach(t -> t.setName(s.names().topic(t.name()))),
            AlterPartitionReassignmentsResponseData.class, (a, s) -> {
                a.setErrorMessage(s.names().scrub(a.errorMessage()));
                a.responses().forEach(t -> {
                    t.setName(s.names().clientTopic(t.name()));
                    t.partitions().forEach(p -> p.setErrorMessage(s.names().scrub(p.errorMessage())));
                });
            }, "topic names prefixed, the answer's back; replicas are the real broker ids");

    private PartitionIsolations() {
    }
}
