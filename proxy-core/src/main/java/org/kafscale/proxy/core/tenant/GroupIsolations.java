package org.kafscale.proxy.core.tenant;

import org.kafscale.proxy.core.codec.Entries;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * How the consumer-group APIs are kept within a virtual cluster: group ids get the tenant's group
 * prefix, the topics they name its topic prefix, and answers get the client's names back. Protocol
 * metadata and assignments are opaque bytes (or ids of the tenant's own topics) and stay as they are.
 */
public final class GroupIsolations {
    private static final byte GROUP_KEY = 0;
    private static final byte TRANSACTION_KEY = 1;

    private GroupIsolations() {
    }

    public static final Isolation FIND_COORDINATOR = Isolation.rewritten(
            FindCoordinatorRequestData.class, (q, scope) -> {
                UnaryOperator<String> real = coordinatorKey(q.keyType(), scope.names());
                // The answer does not say the key type: with different group and transactional-id
                // prefixes, only the request tells which one its keys lose.
                scope.keep(clientKey(q.keyType(), scope.names()));
                q.setKey(real.apply(q.key()));
                q.setCoordinatorKeys(mapped(q.coordinatorKeys(), real));
            },
            FindCoordinatorResponseData.class, (a, scope) -> {
                TenantNames names = scope.names();
                @SuppressWarnings("unchecked")
                UnaryOperator<String> client = scope.kept(UnaryOperator.class);
                a.setErrorMessage(names.scrub(a.errorMessage()));
                Entries.rename(a.coordinators(), c -> c.setKey(client.apply(c.key()))
                        .setErrorMessage(names.scrub(c.errorMessage())));
            },
            "group id (key type 0) or transactional id (1) prefixed; answer's keys back; other key types refused");

    public static final Isolation JOIN_GROUP = Isolation.requestRewritten(
            JoinGroupRequestData.class, (q, scope) -> q.setGroupId(scope.names().group(q.groupId())),
            "group id prefixed; protocol metadata left as sent");

    public static final Isolation SYNC_GROUP = Isolation.requestRewritten(
            SyncGroupRequestData.class, (q, scope) -> q.setGroupId(scope.names().group(q.groupId())),
            "group id prefixed; assignments left as sent");

    public static final Isolation HEARTBEAT = Isolation.requestRewritten(
            HeartbeatRequestData.class, (q, scope) -> q.setGroupId(scope.names().group(q.groupId())),
            "group id prefixed");

    public static final Isolation LEAVE_GROUP = Isolation.requestRewritten(
            LeaveGroupRequestData.class, (q, scope) -> q.setGroupId(scope.names().group(q.groupId())),
            "group id prefixed");

    public static final Isolation OFFSET_COMMIT = Isolation.rewritten(
            OffsetCommitRequestData.class, (q, scope) -> {
                q.setGroupId(scope.names().group(q.groupId()));
                Entries.rename(q.topics(), t -> t.setName(scope.names().topic(t.name()))
                        .setTopicId(scope.topicId(t.topicId())));
            },
            OffsetCommitResponseData.class, (a, scope) -> Entries.rename(a.topics(),
                    t -> t.setName(scope.names().clientTopic(t.name())).setTopicId(scope.clientTopicId(t.topicId()))),
            "group id and topic names prefixed, topic ids checked; answer's names and ids back");

    public static final Isolation OFFSET_FETCH = Isolation.rewritten(
            OffsetFetchRequestData.class, (q, scope) -> {
                TenantNames names = scope.names();
                q.setGroupId(names.group(q.groupId()));
                // A null list asks for every committed offset of the group: it stays null.
                if (q.topics() != null) {
                    Entries.rename(q.topics(), t -> t.setName(names.topic(t.name())));
                }
                Entries.rename(q.groups(), g -> {
                    g.setGroupId(names.group(g.groupId()));
                    if (g.topics() != null) {
                        Entries.rename(g.topics(), t -> t.setName(names.topic(t.name()))
                                .setTopicId(scope.topicId(t.topicId())));
                    }
                });
            },
            OffsetFetchResponseData.class, (a, scope) -> {
                TenantNames names = scope.names();
                // Asked for all of a group's offsets, the broker lists only topics the group committed to,
                // all of them the tenant's; another tenant's would be dropped here all the same.
                Entries.keepRenamed(a.topics(), t -> names.ownsTopic(t.name()),
                        t -> t.setName(names.clientTopic(t.name())));
                Entries.rename(a.groups(), g -> {
                    g.setGroupId(names.clientGroup(g.groupId()));
                    Entries.keepRenamed(g.topics(), t -> names.ownsTopic(t.name()) || isEmpty(t.name()),
                            t -> t.setName(names.clientTopic(t.name())).setTopicId(scope.clientTopicId(t.topicId())));
                });
            },
            "group ids and topic names prefixed, topic ids checked (v0-7 and v8+ shapes); answer's back");

    public static final Isolation OFFSET_DELETE = Isolation.rewritten(
            OffsetDeleteRequestData.class, (q, scope) -> {
                q.setGroupId(scope.names().group(q.groupId()));
                Entries.rename(q.topics(), t -> t.setName(scope.names().topic(t.name())));
            },
            OffsetDeleteResponseData.class, (a, scope) -> Entries.rename(a.topics(),
                    t -> t.setName(scope.names().clientTopic(t.name()))),
            "group id and topic names prefixed; answer's topic names back");

    public static final Isolation LIST_GROUPS = Isolation.answerRewritten(
            ListGroupsResponseData.class, (a, scope) -> Entries.keepRenamed(a.groups(),
                    g -> scope.names().ownsGroup(g.groupId()),
                    g -> g.setGroupId(scope.names().clientGroup(g.groupId()))),
            "answer keeps only the tenant's groups, ids back");

    public static final Isolation DESCRIBE_GROUPS = Isolation.rewritten(
            DescribeGroupsRequestData.class, (q, scope) -> q.setGroups(realGroups(q.groups(), scope.names())),
            DescribeGroupsResponseData.class, (a, scope) -> Entries.rename(a.groups(),
                    g -> g.setGroupId(scope.names().clientGroup(g.groupId()))
                            .setErrorMessage(scope.names().scrub(g.errorMessage()))),
            "group ids prefixed; answer's group ids back");

    public static final Isolation DELETE_GROUPS = Isolation.rewritten(
            DeleteGroupsRequestData.class, (q, scope) -> q.setGroupsNames(realGroups(q.groupsNames(), scope.names())),
            DeleteGroupsResponseData.class, (a, scope) -> Entries.rename(a.results(),
                    r -> r.setGroupId(scope.names().clientGroup(r.groupId()))),
            "group ids prefixed; answer's group ids back");

    public static final Isolation CONSUMER_GROUP_HEARTBEAT = Isolation.rewritten(
            ConsumerGroupHeartbeatRequestData.class, (q, scope) -> {
                TenantNames names = scope.names();
                q.setGroupId(names.group(q.groupId()));
                // Null means "unchanged since the last heartbeat": it stays null.
                if (q.subscribedTopicNames() != null) {
                    q.setSubscribedTopicNames(mapped(q.subscribedTopicNames(), names::topic));
                }
                q.setSubscribedTopicRegex(names.topicPattern(q.subscribedTopicRegex()));
            },
            ConsumerGroupHeartbeatResponseData.class,
            (a, scope) -> a.setErrorMessage(scope.names().scrub(a.errorMessage())),
            "group id, subscribed topic names and regex prefixed; assignment (the tenant's topic ids) as is");

    public static final Isolation CONSUMER_GROUP_DESCRIBE = Isolation.rewritten(
            ConsumerGroupDescribeRequestData.class, (q, scope) -> q.setGroupIds(realGroups(q.groupIds(), scope.names())),
            ConsumerGroupDescribeResponseData.class, (a, scope) -> {
                TenantNames names = scope.names();
                Entries.rename(a.groups(), g -> {
                    g.setGroupId(names.clientGroup(g.groupId())).setErrorMessage(names.scrub(g.errorMessage()));
                    Entries.rename(g.members(), m -> {
                        if (m.subscribedTopicNames() != null) {
                            m.setSubscribedTopicNames(mapped(m.subscribedTopicNames(), names::clientTopic));
                        }
                        clientAssignment(m.assignment(), names);
                        clientAssignment(m.targetAssignment(), names);
                    });
                });
            },
            "group ids prefixed; answer's group ids, members' topic names and assignments' topic names back");

    private static UnaryOperator<String> coordinatorKey(byte keyType, TenantNames names) {
        return switch (keyType) {
            case GROUP_KEY -> names::group;
            case TRANSACTION_KEY -> names::transactionalId;
            default -> throw new TenantRefusal(Errors.INVALID_REQUEST,
                    "FindCoordinator key type " + keyType + " is not served to a virtual cluster");
        };
    }

    /** The client's key for a real one of {@code keyType}, which {@link #coordinatorKey} accepted. */
    private static UnaryOperator<String> clientKey(byte keyType, TenantNames names) {
        return keyType == GROUP_KEY ? names::clientGroup : names::clientTransactionalId;
    }

    private static List<String> realGroups(List<String> groups, TenantNames names) {
        return mapped(groups, names::group);
    }

    /** Each name mapped, in a list the message may still change; null stays null. */
    static List<String> mapped(List<String> names, UnaryOperator<String> map) {
        if (names == null) {
            return null;
        }
        List<String> out = new ArrayList<>(names.size());
        names.forEach(name -> out.add(map.apply(name)));
        return out;
    }

    private static void clientAssignment(ConsumerGroupDescribeResponseData.Assignment assignment, TenantNames names) {
        if (assignment != null) {
            Entries.rename(assignment.topicPartitions(), t -> t.setTopicName(names.clientTopic(t.topicName())));
        }
    }

    private static boolean isEmpty(String name) {
        return name == null || name.isEmpty();
    }
}
