package org.kafscale.proxy.app.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.RequestHeader;

/** Raw clients that pipeline requests without reading: the probes of the listener's limits. */
final class PipelinedFetches {
    private static final Duration STALL_ROUND = Duration.ofMillis(20);

    private PipelinedFetches() {
    }

    /**
     * Writes {@code bytes} to each channel without blocking until none of them has taken a byte
     * for a while: the proxy stopped reading them.
     *
     * @return the bytes the channels took
     */
    static long offerUntilStalled(List<SocketChannel> channels, byte[] bytes) throws IOException {
        Map<SocketChannel, ByteBuffer> left = new LinkedHashMap<>();
        channels.forEach(c -> left.put(c, ByteBuffer.wrap(bytes)));
        long taken = 0;
        int idleRounds = 0;
        // The kernel's socket buffers take some bytes after the proxy stops reading; 50 rounds of
        // 20 ms with nothing taken means every buffer on the way is full.
        while (idleRounds < 50) {
            long round = 0;
            for (Map.Entry<SocketChannel, ByteBuffer> e : left.entrySet()) {
                if (e.getValue().hasRemaining()) {
                    round += e.getKey().write(e.getValue());
                }
            }
            taken += round;
            if (round == 0) {
                idleRounds++;
                LockSupport.parkNanos(STALL_ROUND.toNanos());
            } else {
                idleRounds = 0;
            }
        }
        return taken;
    }

    /** {@code count} size-prefixed Fetch v12 requests from client id "probe", correlation ids from 0. */
    static byte[] fetches(Map<TopicPartition, FetchRequest.PartitionData> partitions, int count, int maxWaitMs,
                          int minBytes, int maxBytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            FetchRequest request = FetchRequest.Builder.forConsumer((short) 12, maxWaitMs, minBytes, partitions)
                    .setMaxBytes(maxBytes).build((short) 12);
            ByteBuffer framed = request.serializeWithHeader(new RequestHeader(ApiKeys.FETCH, (short) 12, "probe", i));
            out.writeBytes(ByteBuffer.allocate(4).putInt(framed.remaining()).array());
            byte[] body = new byte[framed.remaining()];
            framed.get(body);
            out.writeBytes(body);
        }
        return out.toByteArray();
    }
}
