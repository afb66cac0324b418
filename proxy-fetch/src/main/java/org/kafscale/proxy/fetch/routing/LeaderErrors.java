package org.kafscale.proxy.fetch.routing;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.ResponseHeader;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Finds the partitions a broker's answer says it does not lead. The broker is authoritative:
 * those routes are dropped so the next request uses the source's next word on the owner.
 *
 * <p>Reads the answer with kafka-clients' generated classes over a view of the frame; record
 * batches inside a Fetch answer stay views and are not copied.
 */
final class LeaderErrors {
    /** Kafka's leader class: the partition has moved or its leader is changing. */
    static final Set<Errors> LEADER_CLASS = EnumSet.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.LEADER_NOT_AVAILABLE,
            Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH);

    record Partition(String topic, int partition) {
    }

    private LeaderErrors() {
    }

    /** Partitions the answer (header and body) reports in the leader class; empty if it does not parse. */
    static List<Partition> in(ApiKeys api, short version, ByteBuf answer, TopologySnapshot snapshot) {
        List<Partition> found = new ArrayList<>();
        ByteBuffer view = answer.nioBuffer();
        ResponseHeader.parse(view, api.responseHeaderVersion(version));
        AbstractResponse response = AbstractResponse.parseResponse(api, new ByteBufferAccessor(view), version);
        if (response instanceof ProduceResponse produce) {
            produce.data().responses().forEach(t -> t.partitionResponses().forEach(p ->
                    add(found, t.name(), t.topicId(), p.index(), p.errorCode(), snapshot)));
        } else if (response instanceof FetchResponse fetch) {
            fetch.data().responses().forEach(t -> t.partitions().forEach(p ->
                    add(found, t.topic(), t.topicId(), p.partitionIndex(), p.errorCode(), snapshot)));
        } else if (response instanceof ListOffsetsResponse listOffsets) {
            listOffsets.data().topics().forEach(t -> t.partitions().forEach(p ->
                    add(found, t.name(), null, p.partitionIndex(), p.errorCode(), snapshot)));
        } else if (response instanceof OffsetsForLeaderEpochResponse epochs) {
            epochs.data().topics().forEach(t -> t.partitions().forEach(p ->
                    add(found, t.topic(), null, p.partition(), p.errorCode(), snapshot)));
        } else if (response instanceof DeleteRecordsResponse deleteRecords) {
            deleteRecords.data().topics().forEach(t -> t.partitions().forEach(p ->
                    add(found, t.name(), null, p.partitionIndex(), p.errorCode(), snapshot)));
        }
        return found;
    }

    private static void add(List<Partition> found, String name, Uuid id, int partition, short errorCode,
                            TopologySnapshot snapshot) {
        if (!LEADER_CLASS.contains(Errors.forCode(errorCode))) {
            return;
        }
        String topic = name != null && !name.isEmpty() ? name
                : id == null ? null : snapshot.topic(id).map(t -> t.name()).orElse(null);
        if (topic != null) {
            found.add(new Partition(topic, partition));
        }
    }
}
