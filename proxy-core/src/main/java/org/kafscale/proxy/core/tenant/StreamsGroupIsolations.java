package org.kafscale.proxy.core.tenant;

import java.util.List;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;

/**
 * The streams-group APIs (KIP-1071) in a virtual cluster: the group id (the application id) gets
 * the tenant's group prefix, and every topic the topology names (source, repartition and changelog
 * topics) its topic prefix, so the internal topics the coordinator creates are the tenant's too;
 * a source topic regex becomes one over the tenant's topics ({@link TenantNames#topicPattern}).
 * Tasks are named by subtopology id and partition, and stay as they are.
 */
public final class StreamsGroupIsolations {

    public static final Isolation STREAMS_GROUP_HEARTBEAT = Isolation.rewritten(
            StreamsGroupHeartbeatRequestData.class, (q, s) -> {
                TenantNames names = s.names();
                q.setGroupId(names.group(q.groupId()));
                // Null means "unchanged since the last heartbeat": it stays null.
                if (q.topology() != null) {
                    q.topology().subtopologies().forEach(t -> {
                        t.setSourceTopics(GroupIsolations.mapped(t.sourceTopics(), names::topic));
                        t.setSourceTopicRegex(GroupIsolations.mapped(t.sourceTopicRegex(), names::topicPattern));
                        t.setRepartitionSinkTopics(GroupIsolations.mapped(t.repartitionSinkTopics(), names::topic));
                        t.stateChangelogTopics().forEach(i -> i.setName(names.topic(i.name())));
                        t.repartitionSourceTopics().forEach(i -> i.setName(names.topic(i.name())));
                    });
                }
            },
            StreamsGroupHeartbeatResponseData.class, (a, s) -> {
                TenantNames names = s.names();
                a.setErrorMessage(names.scrub(a.errorMessage()));
                if (a.status() != null) {
                    a.status().forEach(st -> st.setStatusDetail(names.scrub(st.statusDetail())));
                }
                if (a.partitionsByUserEndpoint() != null) {
                    a.partitionsByUserEndpoint().forEach(e -> {
                        clientTopics(e.activePartitions(), names);
                        clientTopics(e.standbyPartitions(), names);
                    });
                }
            },
            "group id and the topology's topic names prefixed, source topic regexes kept to the tenant's topics; "
                    + "answer's status details and endpoints' topic names back");

    public static final Isolation STREAMS_GROUP_DESCRIBE = Isolation.rewritten(
            StreamsGroupDescribeRequestData.class,
            (q, s) -> q.setGroupIds(GroupIsolations.mapped(q.groupIds(), s.names()::group)),
            StreamsGroupDescribeResponseData.class, (a, s) -> a.groups().forEach(g -> {
                TenantNames names = s.names();
                g.setGroupId(names.clientGroup(g.groupId())).setErrorMessage(names.scrub(g.errorMessage()));
                if (g.topology() != null && g.topology().subtopologies() != null) {
                    g.topology().subtopologies().forEach(t -> {
                        t.setSourceTopics(GroupIsolations.mapped(t.sourceTopics(), names::clientTopic));
                        t.setRepartitionSinkTopics(GroupIsolations.mapped(t.repartitionSinkTopics(), names::clientTopic));
                        t.stateChangelogTopics().forEach(i -> i.setName(names.clientTopic(i.name())));
                        t.repartitionSourceTopics().forEach(i -> i.setName(names.clientTopic(i.name())));
                    });
                }
            }),
            "group ids prefixed; answer's group ids and the topology's topic names back");

    private StreamsGroupIsolations() {
    }

    private static void clientTopics(List<StreamsGroupHeartbeatResponseData.TopicPartition> partitions,
                                     TenantNames names) {
        partitions.forEach(p -> p.setTopic(names.clientTopic(p.topic())));
    }
}
