package org.kafscale.proxy.routing.share;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;

/** A broker's part of a client's share request: the client's fields, the broker's epoch and partitions. */
final class ShareRequests {
    private ShareRequests() {
    }

    static ShareFetchRequestData fetch(ShareFetchRequestData client, BrokerShare part) {
        ShareFetchRequestData q = new ShareFetchRequestData().setGroupId(client.groupId()).setMemberId(client.memberId())
                .setShareSessionEpoch(part.epoch()).setMaxWaitMs(client.maxWaitMs()).setMinBytes(client.minBytes())
                .setMaxBytes(client.maxBytes()).setMaxRecords(client.maxRecords()).setBatchSize(client.batchSize())
                .setShareAcquireMode(client.shareAcquireMode()).setIsRenewAck(client.isRenewAck());
        part.named().forEach((p, acks) -> {
            ShareFetchRequestData.FetchTopic topic = q.topics().find(p.topicId());
            if (topic == null) {
                topic = new ShareFetchRequestData.FetchTopic().setTopicId(p.topicId());
                q.topics().add(topic);
            }
            topic.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(p.partition())
                    .setAcknowledgementBatches(acks.stream().map(AckBatch::forFetch).toList()));
        });
        Map<Uuid, ShareFetchRequestData.ForgottenTopic> forgotten = new LinkedHashMap<>();
        part.forgotten().forEach(p -> forgotten.computeIfAbsent(p.topicId(),
                id -> new ShareFetchRequestData.ForgottenTopic().setTopicId(id)).partitions().add(p.partition()));
        q.setForgottenTopicsData(List.copyOf(forgotten.values()));
        return q;
    }

    static ShareAcknowledgeRequestData acknowledge(ShareAcknowledgeRequestData client, BrokerShare part) {
        ShareAcknowledgeRequestData q = new ShareAcknowledgeRequestData().setGroupId(client.groupId())
                .setMemberId(client.memberId()).setShareSessionEpoch(part.epoch()).setIsRenewAck(client.isRenewAck());
        part.named().forEach((p, acks) -> {
            ShareAcknowledgeRequestData.AcknowledgeTopic topic = q.topics().find(p.topicId());
            if (topic == null) {
                topic = new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(p.topicId());
                q.topics().add(topic);
            }
            topic.partitions().add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(p.partition())
                    .setAcknowledgementBatches(acks.stream().map(AckBatch::forAcknowledge).toList()));
        });
        return q;
    }
}
