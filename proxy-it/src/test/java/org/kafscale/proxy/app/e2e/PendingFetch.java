package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.Eventually;

/** A long-poll Fetch of an empty partition that the proxy holds: a request a drain owes an answer to. */
final class PendingFetch {
    private static final short VERSION = 12;

    private PendingFetch() {
    }

    /**
     * Sends a Fetch of partition 0 of {@code emptyTopic} that waits up to {@code longPollMs}, and
     * returns once the proxy counts it in flight (so the proxy must have no other request in flight,
     * its read probe included); read the answer with {@code client.read(header)}.
     */
    static RequestHeader send(RunningProxy proxy, RawKafkaConnection client, String emptyTopic, int longPollMs,
                              Duration deadline) throws IOException {
        RequestHeader poll = client.write(FetchRequest.Builder.forConsumer(VERSION, longPollMs, 1,
                Map.of(new TopicPartition(emptyTopic, 0),
                        new FetchRequest.PartitionData(Uuid.ZERO_UUID, 0, -1, 1024 * 1024, Optional.empty())))
                .build(VERSION));
        Eventually.await(deadline, "the Fetch to be in flight",
                () -> proxy.healthBody("/metrics").contains("kafscale_proxy_requests_in_flight 1.0"));
        return poll;
    }
}
