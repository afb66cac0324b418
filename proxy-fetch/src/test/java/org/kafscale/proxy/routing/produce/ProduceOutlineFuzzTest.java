package org.kafscale.proxy.routing.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.testing.TestFrames;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.core.topology.TopologySnapshot;

/**
 * Coverage-guided differential fuzzing of the partial read of a Produce ({@link ProduceOutline})
 * against kafka-clients' decode of the same bytes: whatever the outline reads, the decode reads
 * too, with the same acks and the same partitions in the same order. That is what makes forwarding
 * a body unread safe: the broker parses it as routing read it. The outline may give up where the
 * decode would not (it is the conservative side: the decoded path then takes the request).
 *
 * <p>Input: the first byte picks the version (3 to 13), the rest is the body. Saved inputs (real
 * Produce bodies of several versions) replay in the default run; {@code scripts/fuzz.sh} fuzzes.
 */
class ProduceOutlineFuzzTest {
    private static final int VERSIONS = 11;
    private static final short FIRST_VERSION = 3;
    private static final int CORRELATION_ID = 7;

    @FuzzTest
    void whatTheOutlineReadsTheDecodeReadsAlike(byte[] input) {
        if (input.length == 0) {
            return;
        }
        short version = (short) (FIRST_VERSION + Math.floorMod(input[0], VERSIONS));
        byte[] body = Arrays.copyOfRange(input, 1, input.length);
        ByteBuf frame = Unpooled.wrappedBuffer(TestFrames.request(ApiKeys.PRODUCE, version, CORRELATION_ID, body));
        try {
            frame.skipBytes(4); // the size prefix: a RequestFrame holds header and body
            int headerLength = frame.readableBytes() - body.length;
            ProduceOutline outline = ProduceOutline.read(frame(frame, version, headerLength), TopologySnapshot.EMPTY);
            if (outline == null) {
                return;
            }
            ProduceRequestData decoded = frame(frame, version, headerLength).decodeBody(ProduceRequestData.class);
            assertEquals(decoded.acks(), outline.acks(), "acks of v" + version);
            assertEquals(partitions(decoded, version), outline.partitions(), "partitions of v" + version);
        } finally {
            frame.release();
        }
    }

    private static RequestFrame frame(ByteBuf frame, short version, int headerLength) {
        return new RequestFrame(ApiKeys.PRODUCE.id, version, CORRELATION_ID, "fuzz", headerLength, frame);
    }

    private static List<PartitionRef> partitions(ProduceRequestData request, short version) {
        List<PartitionRef> partitions = new ArrayList<>();
        request.topicData().forEach(topic -> topic.partitionData().forEach(p -> partitions.add(
                new PartitionRef(topic.name(), version >= 13 ? topic.topicId() : null, p.index(), null))));
        return partitions;
    }
}
