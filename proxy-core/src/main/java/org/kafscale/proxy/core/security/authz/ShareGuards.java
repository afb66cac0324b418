package org.kafscale.proxy.core.security.authz;

import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share-group (KIP-932) APIs a share consumer uses, with Kafka's operations: Read on the group
 * to heartbeat, fetch and acknowledge, Describe on each topic subscribed and Read on each topic
 * fetched or acknowledged; Describe on each group described. ShareFetch and ShareAcknowledge are
 * decided whole: the proxy keeps a share session per broker for the client's session, and a
 * request narrowed by authorization would make the broker sessions drift from the client's, so
 * a refused topic refuses the request (TOPIC_AUTHORIZATION_FAILED) rather than part of it.
 */
final class ShareGuards {
    private ShareGuards() {
    }

    static Verdict heartbeat(ShareGroupHeartbeatRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        List<String> subscribed = q.subscribedTopicNames() == null ? List.of() : q.subscribedTopicNames();
        long refused = subscribed.stream().filter(t -> !a.topic(t, AclOperation.DESCRIBE)).count();
        return refused == 0 ? Verdict.ALLOW : new Verdict.Refuse(Errors.TOPIC_AUTHORIZATION_FAILED);
    }

    static Verdict fetch(ShareFetchRequestData q, short version, Access a) {
        return wholeRequest(q.groupId(), q.topics().stream().map(ShareFetchRequestData.FetchTopic::topicId), a);
    }

    static Verdict acknowledge(ShareAcknowledgeRequestData q, short version, Access a) {
        return wholeRequest(q.groupId(), q.topics().stream().map(ShareAcknowledgeRequestData.AcknowledgeTopic::topicId), a);
    }

    static Verdict describe(ShareGroupDescribeRequestData q, short version, Access a) {
        var refused = Refusals.takeOut(q.groupIds(), g -> GroupGuards.groupError(a, g, AclOperation.DESCRIBE));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.groupIds().isEmpty(), q, ShareGroupDescribeResponseData::new,
                answer -> refused.forEach((g, e) -> answer.groups().add(new ShareGroupDescribeResponseData.DescribedGroup()
                        .setGroupId(g).setErrorCode(e.code()).setErrorMessage(e.message()))));
    }

    /** Read on the group and on every topic named (a topic id no topic has is left to the route). */
    private static Verdict wholeRequest(String group, Stream<Uuid> topicIds, Access a) {
        if (!a.group(group, AclOperation.READ)) {
            return new Verdict.Refuse(Errors.GROUP_AUTHORIZATION_FAILED);
        }
        boolean refused = topicIds.map(id -> TopicGuards.topicError(a, null, id, AclOperation.READ))
                .filter(e -> e == Errors.TOPIC_AUTHORIZATION_FAILED).count() > 0;
        return refused ? new Verdict.Refuse(Errors.TOPIC_AUTHORIZATION_FAILED) : Verdict.ALLOW;
    }
}
