package org.kafscale.proxy.core.security.authz;

import static org.apache.kafka.common.protocol.Errors.GROUP_AUTHORIZATION_FAILED;
import static org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.CoordinatorKeyTypes;

/**
 * The group APIs, with Kafka's operations: Read on the group to join, sync, heartbeat, leave and
 * commit (and Read on each topic committed); Describe to fetch offsets (and Describe on each
 * topic), describe groups and find a coordinator; Delete to delete groups and offsets. A refused
 * group gets GROUP_AUTHORIZATION_FAILED; ListGroups lists only groups the principal may describe
 * (all of them with Describe on the cluster).
 */
public final class GroupGuards {
    private GroupGuards() {
    }

    /** An API naming one group (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, ConsumerGroupHeartbeat). */
    public static Verdict oneGroup(String groupId, AclOperation operation, Access a) {
        return a.group(groupId, operation) ? Verdict.ALLOW : new Verdict.Refuse(GROUP_AUTHORIZATION_FAILED);
    }

    public static Verdict offsetCommit(OffsetCommitRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(GROUP_AUTHORIZATION_FAILED);
        }
        var refused = Refusals.takeOut(q.topics(), t -> TopicGuards.topicError(a, t.name(), t.topicId(), AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, OffsetCommitResponseData::new, answer -> refused.forEach((t, e) ->
                answer.topics().add(new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name())
                        .setTopicId(t.topicId()).setPartitions(t.partitions().stream()
                                .map(p -> new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                        .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())).toList()))));
    }

    public static Verdict offsetDelete(OffsetDeleteRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.DELETE)) {
            return new Verdict.Refuse(GROUP_AUTHORIZATION_FAILED);
        }
        var refused = Refusals.takeOut(q.topics(), t -> TopicGuards.topicError(a, t.name(), null, AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, OffsetDeleteResponseData::new, answer -> refused.forEach((t, e) -> {
            var partitions = new OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection();
            t.partitions().forEach(p -> partitions.add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())));
            answer.topics().add(new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name())
                    .setPartitions(partitions));
        }));
    }

    /**
     * OffsetFetch: Describe on each group (v8+ names several: each refused one is answered alone),
     * and on each topic in the answer: left out of an "every topic" answer, refused by name.
     */
    public static Verdict offsetFetch(OffsetFetchRequestData q, short version, Access a) {
        if (version < 8) {
            if (!a.group(q.groupId(), AclOperation.DESCRIBE)) {
                return new Verdict.Refuse(GROUP_AUTHORIZATION_FAILED);
            }
            boolean everyTopic = q.topics() == null;
            return Verdict.<OffsetFetchResponseData>editAnswer(answer -> {
                for (Iterator<OffsetFetchResponseData.OffsetFetchResponseTopic> it = answer.topics().iterator(); it.hasNext(); ) {
                    OffsetFetchResponseData.OffsetFetchResponseTopic t = it.next();
                    if (mayDescribe(a, everyTopic, t.name(), null)) {
                        continue;
                    }
                    if (everyTopic) {
                        it.remove();
                    } else {
                        t.partitions().forEach(p -> p.setErrorCode(TOPIC_AUTHORIZATION_FAILED.code())
                                .setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata(""));
                    }
                }
            });
        }
        Map<String, Boolean> everyTopicByGroup = new HashMap<>();
        q.groups().forEach(g -> everyTopicByGroup.put(g.groupId(), g.topics() == null));
        var refused = Refusals.takeOut(q.groups(),
                g -> Refusals.unless(a.group(g.groupId(), AclOperation.DESCRIBE), GROUP_AUTHORIZATION_FAILED));
        Consumer<OffsetFetchResponseData> hideTopics = answer -> answer.groups().forEach(g -> {
            boolean everyTopic = everyTopicByGroup.getOrDefault(g.groupId(), false);
            for (Iterator<OffsetFetchResponseData.OffsetFetchResponseTopics> it = g.topics().iterator(); it.hasNext(); ) {
                OffsetFetchResponseData.OffsetFetchResponseTopics t = it.next();
                if (mayDescribe(a, everyTopic, t.name(), t.topicId())) {
                    continue;
                }
                if (everyTopic) {
                    it.remove();
                } else {
                    t.partitions().forEach(p -> p.setErrorCode(TOPIC_AUTHORIZATION_FAILED.code())
                            .setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata(""));
                }
            }
        });
        if (refused.isEmpty()) {
            return Verdict.editAnswer(hideTopics);
        }
        return Verdict.partly(q.groups().isEmpty(), q, OffsetFetchResponseData::new, answer -> {
            hideTopics.accept(answer);
            refused.forEach((g, e) -> answer.groups().add(new OffsetFetchResponseData.OffsetFetchResponseGroup()
                    .setGroupId(g.groupId()).setErrorCode(e.code())));
        });
    }

    private static boolean mayDescribe(Access a, boolean listing, String name, Uuid id) {
        var topic = a.topicName(name, id);
        if (topic.isEmpty()) {
            return true;
        }
        return (listing ? a.quietly() : a).topic(topic.get(), AclOperation.DESCRIBE);
    }

    public static Verdict describeGroups(DescribeGroupsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.groups(), g -> groupError(a, g, AclOperation.DESCRIBE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.groups().isEmpty(), q, DescribeGroupsResponseData::new, answer -> refused.forEach((g, e) ->
                answer.groups().add(new DescribeGroupsResponseData.DescribedGroup().setGroupId(g).setErrorCode(e.code())
                        .setGroupState("").setProtocolType("").setProtocolData("")
                        .setAuthorizedOperations(Integer.MIN_VALUE))));
    }

    public static Verdict consumerGroupDescribe(ConsumerGroupDescribeRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.groupIds(), g -> groupError(a, g, AclOperation.DESCRIBE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.groupIds().isEmpty(), q, ConsumerGroupDescribeResponseData::new,
                answer -> refused.forEach((g, e) -> answer.groups().add(
                        new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(g).setErrorCode(e.code())
                                .setErrorMessage(e.message()))));
    }

    public static Verdict deleteGroups(DeleteGroupsRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.groupsNames(), g -> groupError(a, g, AclOperation.DELETE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.groupsNames().isEmpty(), q, DeleteGroupsResponseData::new, answer -> refused.forEach((g, e) ->
                answer.results().add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(g)
                        .setErrorCode(e.code()))));
    }

    /** ListGroups: every group with Describe on the cluster, else only those the principal may describe. */
    public static Verdict listGroups(ApiMessage q, short version, Access a) {
        if (a.quietly().cluster(AclOperation.DESCRIBE)) {
            return Verdict.ALLOW;
        }
        return Verdict.<ListGroupsResponseData>editAnswer(answer -> answer.groups()
                .removeIf(g -> !a.quietly().group(g.groupId(), AclOperation.DESCRIBE)));
    }

    /**
     * FindCoordinator: Describe on the group or transactional id it names; a share-group key
     * (asked by brokers, not clients) needs ClusterAction. From v4 each key is answered on its own.
     */
    public static Verdict findCoordinator(FindCoordinatorRequestData q, short version, Access a) {
        if (version < 4) {
            Errors error = coordinatorKeyError(a, q.keyType(), q.key());
            return error == Errors.NONE ? Verdict.ALLOW : new Verdict.Refuse(error);
        }
        var refused = Refusals.takeOut(q.coordinatorKeys(), key -> coordinatorKeyError(a, q.keyType(), key));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.coordinatorKeys().isEmpty(), q, FindCoordinatorResponseData::new,
                answer -> refused.forEach((key, e) -> answer.coordinators().add(new FindCoordinatorResponseData.Coordinator()
                        .setKey(key).setNodeId(-1).setHost("").setPort(-1).setErrorCode(e.code())
                        .setErrorMessage(e.message()))));
    }

    private static Errors coordinatorKeyError(Access a, byte keyType, String key) {
        if (keyType == CoordinatorKeyTypes.GROUP) {
            return groupError(a, key, AclOperation.DESCRIBE);
        }
        if (keyType == CoordinatorKeyTypes.TRANSACTION) {
            return Refusals.unless(a.transactionalId(key, AclOperation.DESCRIBE),
                    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        // Share-group keys (asked by brokers), and key types Kafka does not know (it refuses those itself).
        return Refusals.unless(a.cluster(AclOperation.CLUSTER_ACTION), Errors.CLUSTER_AUTHORIZATION_FAILED);
    }

    static Errors groupError(Access a, String group, AclOperation operation) {
        return Refusals.unless(a.group(group, operation), GROUP_AUTHORIZATION_FAILED);
    }

}
