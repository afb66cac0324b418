package org.kafscale.proxy.lfs.publish;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * The Produce request that carries one envelope: one record (key, envelope JSON, no headers) in
 * a v2 batch with CreateTime = now, acks=all. The original wrote timestamp 0; consumers then saw
 * 1970, so this is a deliberate deviation.
 */
final class EnvelopeRecord {
    /** Produce v13 names topics by id; without a known id the request stays at v12. */
    private static final short LAST_VERSION_WITH_NAMES = 12;
    private static final short ACKS_ALL = -1;

    private EnvelopeRecord() {
    }

    static ProduceRequest.Builder request(PublishTarget target, int partition, byte[] key, byte[] envelope,
                                          long timestampMillis, int timeoutMs) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(timestampMillis, key, envelope));
        TopicProduceData topic = new TopicProduceData().setName(target.topic()).setTopicId(target.topicId())
                .setPartitionData(List.of(new PartitionProduceData().setIndex(partition).setRecords(records)));
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_ALL).setTimeoutMs(timeoutMs)
                .setTopicData(new TopicProduceDataCollection(List.of(topic).iterator()));
        short max = Uuid.ZERO_UUID.equals(target.topicId()) ? LAST_VERSION_WITH_NAMES : ApiKeys.PRODUCE.latestVersion();
        return new ProduceRequest.Builder(ApiKeys.PRODUCE.oldestVersion(), max, data);
    }
}
