package org.kafscale.proxy.core.security.authz;

import static org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RecordSets;

/**
 * The share-group (KIP-932) APIs a share consumer uses, with Kafka's operations: Read on the group
 * to heartbeat, fetch and acknowledge, Describe on each topic subscribed and Read on each topic
 * fetched or acknowledged; Describe on each group described.
 *
 * <p>ShareFetch and ShareAcknowledge are refused per topic, as Kafka does: the refused topics are
 * taken out of the request, which always goes on (an incremental ShareFetch naming nothing still
 * fetches the session's partitions, and its epoch must reach the brokers), and their partitions
 * are answered TOPIC_AUTHORIZATION_FAILED (and the acknowledgements they carried with it). The
 * client's share session then holds partitions the proxy's broker sessions do not: harmless, as
 * the client gets no records of them to acknowledge, and it forgets them as it likes.
 *
 * <p>A ShareFetch answer is checked too: an incremental request names only what it adds, so a
 * topic already in the session whose Read was taken away since (the rules reloaded) would go on
 * being fetched; its partitions are answered TOPIC_AUTHORIZATION_FAILED without their records,
 * which the broker releases when their acquisition lock times out.
 */
public final class ShareGuards {
    private ShareGuards() {
    }

    public static Verdict heartbeat(ShareGroupHeartbeatRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        List<String> subscribed = q.subscribedTopicNames() == null ? List.of() : q.subscribedTopicNames();
        long refused = subscribed.stream().filter(t -> !a.topic(t, AclOperation.DESCRIBE)).count();
        return refused == 0 ? Verdict.ALLOW : new Verdict.Refuse(Errors.TOPIC_AUTHORIZATION_FAILED);
    }

    public static Verdict fetch(ShareFetchRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        Map<ShareFetchRequestData.FetchTopic, Errors> refused = Refusals.takeOut(q.topics(),
                t -> readRefused(a, t.topicId()));
        return Verdict.<ShareFetchResponseData>edit(refused.isEmpty() ? null : q, answer -> {
            withholdUnreadable(answer, a);
            refused.forEach((t, e) -> t.partitions().forEach(p -> topicOf(answer, t.topicId()).partitions().add(
                    refusedFetch(p.partitionIndex(), !p.acknowledgementBatches().isEmpty()))));
        });
    }

    public static Verdict acknowledge(ShareAcknowledgeRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        Map<ShareAcknowledgeRequestData.AcknowledgeTopic, Errors> refused = Refusals.takeOut(q.topics(),
                t -> readRefused(a, t.topicId()));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.<ShareAcknowledgeResponseData>edit(q, answer -> refused.forEach((t, e) -> {
            ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse topic = answer.responses().find(t.topicId());
            if (topic == null) {
                topic = new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(t.topicId());
                answer.responses().add(topic);
            }
            for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                topic.partitions().add(new ShareAcknowledgeResponseData.PartitionData().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(e.code()).setErrorMessage(e.message())
                        .setCurrentLeader(new ShareAcknowledgeResponseData.LeaderIdAndEpoch().setLeaderId(-1).setLeaderEpoch(-1)));
            }
        }));
    }

    public static Verdict describe(ShareGroupDescribeRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.groupIds(), g -> GroupGuards.groupError(a, g, AclOperation.DESCRIBE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.groupIds().isEmpty(), q, ShareGroupDescribeResponseData::new,
                answer -> refused.forEach((g, e) -> answer.groups().add(new ShareGroupDescribeResponseData.DescribedGroup()
                        .setGroupId(g).setErrorCode(e.code()).setErrorMessage(e.message()))));
    }

    /** TOPIC_AUTHORIZATION_FAILED when Read on the topic is refused; a topic id no topic has is left to the route (UNKNOWN_TOPIC_ID). */
    private static Errors readRefused(Access a, Uuid topicId) {
        Errors error = TopicGuards.topicError(a, null, topicId, AclOperation.READ);
        return error == TOPIC_AUTHORIZATION_FAILED ? error : Errors.NONE;
    }

    /** Partitions of topics the principal may no longer read lose their records and get the refusal. */
    private static void withholdUnreadable(ShareFetchResponseData answer, Access a) {
        for (ShareFetchResponseData.ShareFetchableTopicResponse t : answer.responses()) {
            var name = a.topicName(null, t.topicId());
            if (name.isEmpty() || a.topic(name.get(), AclOperation.READ)) {
                continue;
            }
            // The broker's verdict on acknowledgements it took stays: they were for records it delivered before.
            t.partitions().replaceAll(p -> refusedFetch(p.partitionIndex(), false)
                    .setAcknowledgeErrorCode(p.acknowledgeErrorCode()).setAcknowledgeErrorMessage(p.acknowledgeErrorMessage()));
        }
    }

    private static ShareFetchResponseData.ShareFetchableTopicResponse topicOf(ShareFetchResponseData answer, Uuid id) {
        ShareFetchResponseData.ShareFetchableTopicResponse topic = answer.responses().find(id);
        if (topic == null) {
            topic = new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(id);
            answer.responses().add(topic);
        }
        return topic;
    }

    private static ShareFetchResponseData.PartitionData refusedFetch(int partition, boolean carriedAcks) {
        ShareFetchResponseData.PartitionData p = new ShareFetchResponseData.PartitionData().setPartitionIndex(partition)
                .setErrorCode(TOPIC_AUTHORIZATION_FAILED.code()).setErrorMessage(TOPIC_AUTHORIZATION_FAILED.message())
                .setRecords(RecordSets.empty())
                .setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(-1).setLeaderEpoch(-1));
        if (carriedAcks) {
            p.setAcknowledgeErrorCode(TOPIC_AUTHORIZATION_FAILED.code())
                    .setAcknowledgeErrorMessage(TOPIC_AUTHORIZATION_FAILED.message());
        }
        return p;
    }
}
