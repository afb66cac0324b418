package org.kafscale.proxy.lfs.tracker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.testkit.Eventually;

/**
 * When the tracker's flush timer runs: only while events wait. A cluster with no tracker topic
 * (an empty topology) is enough to see a batch leave, as dropped; {@code LfsTrackerAndMetricsIT}
 * sees batches arrive in Kafka.
 */
class KafkaTrackerTest {
    private static final Duration INTERVAL = Duration.ofMillis(50);

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final EventLoopGroup workers = NettyTransport.newEventLoopGroup(1, "tracker-test");
    private final KafkaRequestClient kafka = new KafkaRequestClient(workers,
            new BackendConnector(1 << 20, Duration.ofSeconds(1)), "tracker-test", Duration.ofSeconds(1));
    private final Topology noTopics = new Topology() {
        @Override
        public TopologySnapshot snapshot() {
            return TopologySnapshot.EMPTY;
        }

        @Override
        public CompletionStage<Integer> coordinator(CoordinatorKind kind, String key) {
            return CompletableFuture.failedFuture(new IllegalStateException("no coordinators here"));
        }

        @Override
        public void invalidatePartition(String topic, int partition) {
        }

        @Override
        public void invalidateCoordinator(CoordinatorKind kind, String key) {
        }
    };

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private KafkaTracker start(int batchSize) {
        return start(batchSize, INTERVAL);
    }

    private KafkaTracker start(int batchSize, Duration interval) {
        return KafkaTracker.start(new TrackerSettings(true, TrackerSettings.DEFAULT_TOPIC, batchSize, interval, false, 1,
                (short) 1), noTopics, kafka, scheduler);
    }

    private static TrackerEvent event(int n) {
        return new TrackerEvents("proxy-1").downloadCompleted("req-" + n, "key-" + n, "stream", 1, 0);
    }

    @Test
    void aTrackerWithNothingQueuedKeepsNoTimer() {
        start(10);

        assertEquals(0, scheduler.getQueue().size(), "tasks scheduled by an idle tracker");
    }

    @Test
    void eventsShortOfABatchLeaveWithinTheIntervalOnOneTimer() {
        // Given: an interval long enough that the timer is still set when the test looks
        KafkaTracker tracker = start(10, Duration.ofSeconds(1));

        // When
        tracker.emit(event(1));
        tracker.emit(event(2));
        tracker.emit(event(3));

        // Then: one timer for the three, and the batch left once it fired (dropped: no such topic)
        assertEquals(1, scheduler.getQueue().size(), "timers set for three queued events");
        Eventually.await(Duration.ofSeconds(10), "the batch to leave", () -> tracker.dropped() == 3);
        Eventually.await(Duration.ofSeconds(10), "the timer to be gone", () -> scheduler.getQueue().isEmpty());
    }

    @Test
    void aFullBatchLeavesAtOnceAndTheNextEventsSetATimerAgain() {
        // Given
        KafkaTracker tracker = start(2);

        // When: a full batch, then one event more once it has gone
        tracker.emit(event(1));
        tracker.emit(event(2));
        Eventually.await(Duration.ofSeconds(10), "the full batch to leave", () -> tracker.dropped() == 2);
        tracker.emit(event(3));

        // Then
        Eventually.await(Duration.ofSeconds(10), "the last event to leave", () -> tracker.dropped() == 3);
    }
}
