package org.kafscale.proxy.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.testkit.Eventually;

class SinkQueueTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    /** Counts like the metrics do. */
    private static final class Counts implements AuditSinkObserver {
        final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        @Override
        public void written(String sink, int events) {
            count(sink + "/written", events);
        }

        @Override
        public void dropped(String sink, String reason, int events) {
            count(sink + "/" + reason, events);
        }

        void count(String key, int n) {
            counts.computeIfAbsent(key, k -> new AtomicInteger()).addAndGet(n);
        }

        int get(String key) {
            AtomicInteger n = counts.get(key);
            return n == null ? 0 : n.get();
        }
    }

    /** A sink whose writes wait until it is released, as a stuck disk or a broker that does not answer. */
    private static final class StalledSink implements AuditSink {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> written = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "stalled";
        }

        @Override
        public void write(List<String> lines) throws IOException {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            written.addAll(lines);
        }
    }

    @Test
    void aStalledSinkDropsAndCountsWhatItsQueueCannotHoldWithoutBlockingTheCaller() throws Exception {
        StalledSink sink = new StalledSink();
        Counts counts = new Counts();
        SinkQueue queue = new SinkQueue(sink, 2, counts);
        try {
            queue.offer("first");
            assertTrue(sink.entered.await(10, TimeUnit.SECONDS), "the sink's thread took the first line");

            // When: three more while the sink is stuck, with room for two
            queue.offer("second");
            queue.offer("third");
            queue.offer("fourth");

            // Then: the offers returned although the sink is stuck; one line is dropped and counted, the queue is full
            assertEquals(1, counts.get("stalled/" + AuditSinkObserver.QUEUE_FULL));
            assertFalse(queue.accepting());
            sink.release.countDown();
            Eventually.await(DEADLINE, "the queued lines written", () -> counts.get("stalled/written") == 3);
            assertEquals(List.of("first", "second", "third"), sink.written);
            assertTrue(queue.accepting());
        } finally {
            sink.release.countDown();
            queue.close();
        }
    }

    @Test
    void aFailingSinkIsDownUntilItWritesAgainAndItsLostLinesAreCounted() {
        AtomicBoolean broken = new AtomicBoolean(true);
        List<String> written = new CopyOnWriteArrayList<>();
        AuditSink sink = new AuditSink() {
            @Override
            public String name() {
                return "flaky";
            }

            @Override
            public void write(List<String> lines) throws IOException {
                if (broken.get()) {
                    throw new IOException("disk full");
                }
                written.addAll(lines);
            }
        };
        Counts counts = new Counts();
        SinkQueue queue = new SinkQueue(sink, 10, counts);
        try {
            queue.offer("lost");
            Eventually.await(DEADLINE, "the failed write counted", () -> counts.get("flaky/"
                    + AuditSinkObserver.SINK_ERROR) == 1);
            assertFalse(queue.accepting(), "down after a failed write");

            broken.set(false);

            Eventually.await(DEADLINE, "the probe finds the sink writing again", queue::accepting);
            queue.offer("kept");
            Eventually.await(DEADLINE, "the next line written", () -> written.contains("kept"));
            assertFalse(written.contains("lost"));
        } finally {
            queue.close();
        }
    }

    @Test
    void failClosedRefusesMutationsWhileASinkIsNotAccepting() throws Exception {
        StalledSink sink = new StalledSink();
        SinkQueue queue = new SinkQueue(sink, 1, AuditSinkObserver.NONE);
        AuditTrail open = new AuditTrail(List.of(queue), false);
        AuditTrail closed = new AuditTrail(List.of(queue), true);
        try {
            assertFalse(closed.refusesMutations());
            queue.offer("taken");
            assertTrue(sink.entered.await(10, TimeUnit.SECONDS));
            queue.offer("fills the queue");

            assertTrue(closed.refusesMutations());
            assertFalse(open.refusesMutations(), "without failClosed nothing is refused");
        } finally {
            sink.release.countDown();
            queue.close();
        }
    }
}
