package org.kafscale.proxy.lfs.publish;

import java.util.List;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.message.ProduceResponseData;
import org.kafscale.proxy.core.codec.OutboundRequest;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.codec.RecordSets;

/**
 * The Produce request that carries one envelope: one record (key, envelope JSON, no headers) in
 * a v2 batch with CreateTime = now, acks=all. The original wrote timestamp 0; consumers then saw
 * 1970, so this is a deliberate deviation.
 */
final class EnvelopeRecord {
    private static final short ACKS_ALL = -1;

    private EnvelopeRecord() {
    }

    static OutboundRequest<ProduceResponseData> request(PublishTarget target, int partition, byte[] key,
                                                        byte[] envelope, long timestampMillis, int timeoutMs) {
        TopicProduceData topic = new TopicProduceData().setName(target.topic()).setTopicId(target.topicId())
                .setPartitionData(List.of(new PartitionProduceData().setIndex(partition).setRecords(
                        RecordSets.uncompressed(timestampMillis, List.of(new RecordSets.KeyValue(key, envelope))))));
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_ALL).setTimeoutMs(timeoutMs)
                .setTopicData(new TopicProduceDataCollection(List.of(topic).iterator()));
        return OutboundRequests.produce(data);
    }
}
