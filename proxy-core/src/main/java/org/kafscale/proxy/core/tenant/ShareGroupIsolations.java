package org.kafscale.proxy.core.tenant;

import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.kafscale.proxy.core.codec.Entries;

/**
 * The share-group APIs (KIP-932) in a virtual cluster: group ids get the tenant's group prefix,
 * topic names its topic prefix, and topic ids of another tenant's topics become ids no broker
 * knows, as Fetch does ({@link TenantScope#topicId}); answers get the client's names and ids back.
 * A member's assignment names topics by id, and the broker assigns only the topics the member
 * subscribed to, all the tenant's: it is left as it is.
 */
public final class ShareGroupIsolations {

    public static final Isolation SHARE_GROUP_HEARTBEAT = Isolation.rewritten(
            ShareGroupHeartbeatRequestData.class, (q, s) -> {
                q.setGroupId(s.names().group(q.groupId()));
                // Null means "unchanged since the last heartbeat": it stays null.
                q.setSubscribedTopicNames(GroupIsolations.mapped(q.subscribedTopicNames(), s.names()::topic));
            },
            ShareGroupHeartbeatResponseData.class, (a, s) -> a.setErrorMessage(s.names().scrub(a.errorMessage())),
            "group id and subscribed topic names prefixed; assignment (the tenant's topic ids) as is");

    public static final Isolation SHARE_GROUP_DESCRIBE = Isolation.rewritten(
            ShareGroupDescribeRequestData.class,
            (q, s) -> q.setGroupIds(GroupIsolations.mapped(q.groupIds(), s.names()::group)),
            ShareGroupDescribeResponseData.class, (a, s) -> a.groups().forEach(g -> {
                TenantNames names = s.names();
                g.setGroupId(names.clientGroup(g.groupId())).setErrorMessage(names.scrub(g.errorMessage()));
                g.members().forEach(m -> {
                    m.setSubscribedTopicNames(GroupIsolations.mapped(m.subscribedTopicNames(), names::clientTopic));
                    if (m.assignment() != null) {
                        m.assignment().topicPartitions().forEach(t -> t.setTopicName(names.clientTopic(t.topicName())));
                    }
                });
            }),
            "group ids prefixed; answer's group ids, members' topic names and assignments' topic names back");

    public static final Isolation SHARE_FETCH = Isolation.rewritten(ShareFetchRequestData.class, (q, s) -> {
        q.setGroupId(s.names().group(q.groupId()));
        Entries.rename(q.topics(), t -> t.setTopicId(s.topicId(t.topicId())));
        q.forgottenTopicsData().forEach(t -> t.setTopicId(s.topicId(t.topicId())));
    }, ShareFetchResponseData.class, (a, s) -> {
        a.setErrorMessage(s.names().scrub(a.errorMessage()));
        Entries.rename(a.responses(), t -> {
            t.setTopicId(s.clientTopicId(t.topicId()));
            t.partitions().forEach(p -> p.setErrorMessage(s.names().scrub(p.errorMessage()))
                    .setAcknowledgeErrorMessage(s.names().scrub(p.acknowledgeErrorMessage())));
        });
    }, "group id prefixed, foreign topic ids unknown; answer's ids back");

    public static final Isolation SHARE_ACKNOWLEDGE = Isolation.rewritten(ShareAcknowledgeRequestData.class, (q, s) -> {
        q.setGroupId(s.names().group(q.groupId()));
        Entries.rename(q.topics(), t -> t.setTopicId(s.topicId(t.topicId())));
    }, ShareAcknowledgeResponseData.class, (a, s) -> {
        a.setErrorMessage(s.names().scrub(a.errorMessage()));
        Entries.rename(a.responses(), t -> {
            t.setTopicId(s.clientTopicId(t.topicId()));
            t.partitions().forEach(p -> p.setErrorMessage(s.names().scrub(p.errorMessage())));
        });
    }, "group id prefixed, foreign topic ids unknown; answer's ids back");

    public static final Isolation DESCRIBE_SHARE_GROUP_OFFSETS = Isolation.rewritten(
            DescribeShareGroupOffsetsRequestData.class, (q, s) -> q.groups().forEach(g -> {
                g.setGroupId(s.names().group(g.groupId()));
                // A null list asks for every topic the group has offsets on: it stays null.
                if (g.topics() != null) {
                    g.topics().forEach(t -> t.setTopicName(s.names().topic(t.topicName())));
                }
            }),
            DescribeShareGroupOffsetsResponseData.class, (a, s) -> a.groups().forEach(g -> {
                TenantNames names = s.names();
                g.setGroupId(names.clientGroup(g.groupId())).setErrorMessage(names.scrub(g.errorMessage()));
                // Asked for every topic, the broker lists the group's, all the tenant's; any other is dropped.
                Entries.keepRenamed(g.topics(), t -> names.ownsTopic(t.topicName()), t -> {
                    t.setTopicName(names.clientTopic(t.topicName()));
                    t.partitions().forEach(p -> p.setErrorMessage(names.scrub(p.errorMessage())));
                });
            }),
            "group ids and topic names prefixed; answer keeps the tenant's topics, names back");

    public static final Isolation ALTER_SHARE_GROUP_OFFSETS = Isolation.rewritten(
            AlterShareGroupOffsetsRequestData.class, (q, s) -> {
                q.setGroupId(s.names().group(q.groupId()));
                Entries.rename(q.topics(), t -> t.setTopicName(s.names().topic(t.topicName())));
            },
            AlterShareGroupOffsetsResponseData.class, (a, s) -> {
                a.setErrorMessage(s.names().scrub(a.errorMessage()));
                Entries.rename(a.responses(), t -> {
                    t.setTopicName(s.names().clientTopic(t.topicName()));
                    t.partitions().forEach(p -> p.setErrorMessage(s.names().scrub(p.errorMessage())));
                });
            },
            "group id and topic names prefixed; answer's topic names back");

    public static final Isolation DELETE_SHARE_GROUP_OFFSETS = Isolation.rewritten(
            DeleteShareGroupOffsetsRequestData.class, (q, s) -> {
                q.setGroupId(s.names().group(q.groupId()));
                q.topics().forEach(t -> t.setTopicName(s.names().topic(t.topicName())));
            },
            DeleteShareGroupOffsetsResponseData.class, (a, s) -> {
                a.setErrorMessage(s.names().scrub(a.errorMessage()));
                a.responses().forEach(t -> t.setTopicName(s.names().clientTopic(t.topicName()))
                        .setErrorMessage(s.names().scrub(t.errorMessage())));
            },
            "group id and topic names prefixed; answer's topic names back");

    private ShareGroupIsolations() {
    }
}
