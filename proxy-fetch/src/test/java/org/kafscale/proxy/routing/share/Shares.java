package org.kafscale.proxy.routing.share;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * Share requests and answers for routing tests, in kafka-clients' generated classes, as one member
 * ({@link #GROUP}, {@link #MEMBER}) sends them. Partitions are named "topic-index".
 */
final class Shares {
    static final short VERSION = 1;
    static final String GROUP = "shared";
    static final String MEMBER = "member-1";
    /** Acknowledge type 1: accept. */
    static final byte ACCEPT = 1;

    private Shares() {
    }

    static ShareFetchRequestData fetch(StubTopology topology, int epoch, List<String> named, Map<String, long[]> acks,
                                       List<String> forgotten) {
        ShareFetchRequestData q = new ShareFetchRequestData().setGroupId(GROUP).setMemberId(MEMBER).setShareSessionEpoch(epoch)
                .setMaxWaitMs(100).setMinBytes(1).setMaxBytes(1024 * 1024).setMaxRecords(500).setBatchSize(500);
        List<String> all = new ArrayList<>(named);
        acks.keySet().stream().filter(p -> !all.contains(p)).forEach(all::add);
        for (String partition : all) {
            ShareFetchRequestData.FetchTopic topic = q.topics().find(topology.topicId(topicOf(partition)));
            if (topic == null) {
                topic = new ShareFetchRequestData.FetchTopic().setTopicId(topology.topicId(topicOf(partition)));
                q.topics().add(topic);
            }
            ShareFetchRequestData.FetchPartition p = new ShareFetchRequestData.FetchPartition()
                    .setPartitionIndex(indexOf(partition));
            long[] range = acks.get(partition);
            if (range != null) {
                p.acknowledgementBatches().add(new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(range[0])
                        .setLastOffset(range[1]).setAcknowledgeTypes(List.of(ACCEPT)));
            }
            topic.partitions().add(p);
        }
        for (String partition : forgotten) {
            q.forgottenTopicsData().add(new ShareFetchRequestData.ForgottenTopic()
                    .setTopicId(topology.topicId(topicOf(partition))).setPartitions(List.of(indexOf(partition))));
        }
        return q;
    }

    static ShareAcknowledgeRequestData acknowledge(StubTopology topology, int epoch, String partition, long first, long last) {
        ShareAcknowledgeRequestData q = new ShareAcknowledgeRequestData().setGroupId(GROUP).setMemberId(MEMBER)
                .setShareSessionEpoch(epoch);
        ShareAcknowledgeRequestData.AcknowledgeTopic topic = new ShareAcknowledgeRequestData.AcknowledgeTopic()
                .setTopicId(topology.topicId(topicOf(partition)));
        topic.partitions().add(new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(indexOf(partition))
                .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequestData.AcknowledgementBatch().setFirstOffset(first)
                        .setLastOffset(last).setAcknowledgeTypes(List.of(ACCEPT)))));
        q.topics().add(topic);
        return q;
    }

    /** A broker's answer delivering {@code values} (offsets from 0) for one partition. */
    static ShareFetchResponseData delivering(StubTopology topology, String partition, String... values) {
        ShareFetchResponseData.PartitionData p = new ShareFetchResponseData.PartitionData()
                .setPartitionIndex(indexOf(partition)).setRecords(TestRecords.plain(values))
                .setCurrentLeader(new ShareFetchResponseData.LeaderIdAndEpoch().setLeaderId(-1).setLeaderEpoch(-1));
        if (values.length > 0) {
            p.acquiredRecords().add(new ShareFetchResponseData.AcquiredRecords().setFirstOffset(0)
                    .setLastOffset(values.length - 1).setDeliveryCount((short) 1));
        }
        ShareFetchResponseData answer = new ShareFetchResponseData().setAcquisitionLockTimeoutMs(30_000);
        answer.responses().add(new ShareFetchResponseData.ShareFetchableTopicResponse()
                .setTopicId(topology.topicId(topicOf(partition))).setPartitions(new ArrayList<>(List.of(p))));
        return answer;
    }

    /** What each ShareFetch {@code broker} received: epoch, partitions named, partitions forgotten. */
    static List<String> fetchesAt(ScriptedBroker broker, StubTopology topology) {
        List<String> seen = new ArrayList<>();
        for (ScriptedBroker.Request r : broker.received(org.apache.kafka.common.protocol.ApiKeys.SHARE_FETCH)) {
            ShareFetchRequestData q = r.data(ShareFetchRequestData.class);
            seen.add(describe(q, topology));
        }
        return seen;
    }

    static String describe(ShareFetchRequestData q, StubTopology topology) {
        List<String> named = new ArrayList<>();
        q.topics().forEach(t -> t.partitions().forEach(p -> named.add(topology.topicName(t.topicId()) + "-" + p.partitionIndex()
                + (p.acknowledgementBatches().isEmpty() ? "" : "+ack"))));
        List<String> forgotten = new ArrayList<>();
        q.forgottenTopicsData().forEach(t -> t.partitions().forEach(p -> forgotten.add(topology.topicName(t.topicId()) + "-" + p)));
        return "epoch " + q.shareSessionEpoch() + " " + named + (forgotten.isEmpty() ? "" : " forgot " + forgotten);
    }

    /** Each partition of the answer with its record values, and acknowledgement error when there is one. */
    static Map<String, String> results(StubTopology topology, ShareFetchResponseData answer) {
        Map<String, String> out = new LinkedHashMap<>();
        answer.responses().forEach(t -> t.partitions().forEach(p -> out.put(topology.topicName(t.topicId()) + "-" + p.partitionIndex(),
                TestRecords.values(p.records())
                        + (p.acknowledgeErrorCode() == 0 ? "" : " ack " + Errors.forCode(p.acknowledgeErrorCode()).name()))));
        return out;
    }

    static String topicOf(String partition) {
        return partition.substring(0, partition.lastIndexOf('-'));
    }

    static int indexOf(String partition) {
        return Integer.parseInt(partition.substring(partition.lastIndexOf('-') + 1));
    }
}
