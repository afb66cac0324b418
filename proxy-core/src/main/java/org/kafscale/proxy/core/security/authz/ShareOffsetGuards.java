package org.kafscale.proxy.core.security.authz;

import static org.apache.kafka.common.protocol.Errors.GROUP_AUTHORIZATION_FAILED;
import static org.apache.kafka.common.protocol.Errors.TOPIC_AUTHORIZATION_FAILED;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic;

/**
 * The share groups' offset admin APIs (KIP-932), with Kafka's operations, as their consumer-group
 * counterparts: DescribeShareGroupOffsets needs Describe on each group (each decided alone) and on
 * each topic, AlterShareGroupOffsets Read on the group and on each topic, DeleteShareGroupOffsets
 * Delete on the group and Read on each topic. A refused group gets GROUP_AUTHORIZATION_FAILED, a
 * refused topic TOPIC_AUTHORIZATION_FAILED; the rest goes on.
 */
public final class ShareOffsetGuards {
    private ShareOffsetGuards() {
    }

    /**
     * Describe: each group alone; a topic named that may not be described is answered refused
     * (the broker's answer for it is replaced), and a group's "every topic" answer leaves it out.
     */
    public static Verdict describe(DescribeShareGroupOffsetsRequestData q, short version, Access a) {
        Map<String, Boolean> everyTopicByGroup = new HashMap<>();
        q.groups().forEach(g -> everyTopicByGroup.put(g.groupId(), g.topics() == null));
        var refused = Refusals.takeOut(q.groups(),
                g -> Refusals.unless(a.group(g.groupId(), AclOperation.DESCRIBE), GROUP_AUTHORIZATION_FAILED));
        Consumer<DescribeShareGroupOffsetsResponseData> hideTopics = answer -> answer.groups().forEach(g -> {
            boolean everyTopic = everyTopicByGroup.getOrDefault(g.groupId(), false);
            for (Iterator<DescribeShareGroupOffsetsResponseTopic> it = g.topics().iterator(); it.hasNext(); ) {
                DescribeShareGroupOffsetsResponseTopic t = it.next();
                var name = a.topicName(t.topicName(), t.topicId());
                if (name.isEmpty() || (everyTopic ? a.quietly() : a).topic(name.get(), AclOperation.DESCRIBE)) {
                    continue;
                }
                if (everyTopic) {
                    it.remove();
                } else {
                    t.partitions().forEach(p -> p.setErrorCode(TOPIC_AUTHORIZATION_FAILED.code())
                            .setErrorMessage(TOPIC_AUTHORIZATION_FAILED.message()).setStartOffset(-1).setLeaderEpoch(-1)
                            .setLag(-1));
                }
            }
        });
        if (refused.isEmpty()) {
            return Verdict.editAnswer(hideTopics);
        }
        return Verdict.partly(q.groups().isEmpty(), q, DescribeShareGroupOffsetsResponseData::new, answer -> {
            hideTopics.accept(answer);
            refused.forEach((g, e) -> answer.groups().add(
                    new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                            .setGroupId(g.groupId()).setErrorCode(e.code()).setErrorMessage(e.message())));
        });
    }

    public static Verdict alter(AlterShareGroupOffsetsRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.READ)) {
            return new Verdict.Refuse(GROUP_AUTHORIZATION_FAILED);
        }
        var refused = Refusals.takeOut(q.topics(), t -> TopicGuards.topicError(a, t.topicName(), null, AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, AlterShareGroupOffsetsResponseData::new, answer -> refused.forEach((t, e) ->
                answer.responses().add(new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                        .setTopicName(t.topicName()).setPartitions(t.partitions().stream()
                                .map(p -> new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition()
                                        .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())
                                        .setErrorMessage(e.message())).toList()))));
    }

    public static Verdict delete(DeleteShareGroupOffsetsRequestData q, short version, Access a) {
        if (!a.group(q.groupId(), AclOperation.DELETE)) {
            return new Verdict.Refuse(GROUP_AUTHORIZATION_FAILED);
        }
        var refused = Refusals.takeOut(q.topics(), t -> TopicGuards.topicError(a, t.topicName(), null, AclOperation.READ));
        if (refused.isEmpty()) {
            return Verdict.ALLOW;
        }
        return Verdict.partly(q.topics().isEmpty(), q, DeleteShareGroupOffsetsResponseData::new, answer -> refused.forEach((t, e) ->
                answer.responses().add(new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic()
                        .setTopicName(t.topicName()).setErrorCode(e.code()).setErrorMessage(e.message()))));
    }
}
