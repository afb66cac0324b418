package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * Fetch read-ahead in {@code single} mode against three real brokers: a read_committed consumer
 * that reads committed and aborted transactions, seeks backwards (and forwards into an aborted
 * transaction) mid-stream and pauses and resumes partitions, through the proxy, sees record for
 * record, offsets included, what the same consumer sees directly.
 *
 * <p>Small partition fetch sizes make the consumer fetch often, with broker answers that end in a
 * cut batch, so most of its Fetches meet an answer read ahead and every seek or pause meets one
 * that no longer fits.
 */
class ReadAheadIT {
    private static final int PARTITIONS = 6;
    private static final int TRANSACTIONS = 6;
    private static final int COMMITTED_PER_TRANSACTION = 240;
    private static final int ABORTED_PER_TRANSACTION = 120;
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final String TOPIC = "read-ahead";

    private static KafkaCluster cluster;
    /** Every committed record of each partition, as a direct read_committed consumer reads them. */
    private static Map<Integer, List<Rec>> committed;
    private static Map<TopicPartition, Long> ends;

    /** One record as the consumer saw it. */
    record Rec(long offset, String value) {
    }

    /** The records a partition returned from one position on, until the next seek. */
    record Segment(long from, List<Rec> records) {
    }

    @BeforeAll
    static void committedAndAbortedTransactionsOnThreeBrokers() throws Exception {
        cluster = KafkaCluster.start(3);
        cluster.createTopic(TOPIC, RecordRoundTrip.leadersRoundRobin(cluster.brokerIds(), PARTITIONS));
        try (KafkaProducer<String, String> producer = TransactionalRecords.producer(cluster.bootstrapServers(),
                "read-ahead-txn")) {
            producer.initTransactions();
            for (int t = 0; t < TRANSACTIONS; t++) {
                producer.beginTransaction();
                TransactionalRecords.sendAll(producer, TOPIC, PARTITIONS, "committed-" + t + "-",
                        COMMITTED_PER_TRANSACTION);
                producer.commitTransaction();
                producer.beginTransaction();
                TransactionalRecords.sendAll(producer, TOPIC, PARTITIONS, "aborted-" + t + "-", ABORTED_PER_TRANSACTION);
                producer.abortTransaction();
            }
        }
        TransactionalRecords.awaitMarkers(cluster, TOPIC, PARTITIONS);
        ends = TransactionalRecords.endOffsets(cluster, RecordRoundTrip.partitionsOf(TOPIC, PARTITIONS),
                IsolationLevel.READ_UNCOMMITTED);
        committed = readAllDirectly();
        assertEquals(TRANSACTIONS * COMMITTED_PER_TRANSACTION,
                committed.values().stream().mapToInt(List::size).sum(), "committed records read directly");
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void aConsumerThatSeeksAndPausesSeesThroughTheProxyExactlyWhatItSeesDirectly() throws Exception {
        // Given the consumer's script run directly
        Map<Integer, List<Segment>> direct = seekPauseAndReadToEnd(cluster.bootstrapServers());
        Map<Integer, List<Segment>> proxied;
        double adopted;
        double missed;
        // When the same script runs through the proxy in single mode (read-ahead on by default)
        try (RunningProxy proxy = RunningProxy.start(cluster, "single")) {
            proxied = seekPauseAndReadToEnd(proxy.bootstrap());
            adopted = proxy.metric("kafscale_proxy_fetch_read_aheads_total{outcome=\"adopted\"");
            missed = proxy.metric("kafscale_proxy_fetch_read_aheads_total{outcome=\"missed\"");
            Eventually.await(DEADLINE, "no read-ahead held once the consumer is gone",
                    () -> proxy.metric("kafscale_proxy_fetch_read_ahead_bytes") == 0.0);
        }

        // Then every segment of both runs is exactly the committed log from where it started, the
        // last one to the end, and both runs end with the same records at the same offsets
        assertSegmentsAreTheCommittedLog(direct);
        assertSegmentsAreTheCommittedLog(proxied);
        for (int p = 0; p < PARTITIONS; p++) {
            assertEquals(last(direct.get(p)), last(proxied.get(p)), "records of partition " + p + " after its last seek");
            assertEquals(direct.get(p).size(), proxied.get(p).size(), "seeks of partition " + p);
        }
        // and the proxy did read ahead: answers were taken, and the seeks and the pause dropped some
        assertTrue(adopted > 0, "read-aheads adopted: " + adopted);
        assertTrue(missed > 0, "read-aheads missed: " + missed);
    }

    /**
     * Reads from the start; once partition 0 has 150 records, seeks it back to 0 and partition 1
     * forward into its first aborted transaction, and pauses 2 and 3 until partition 0 has read 150
     * more; then reads every partition to the end of its log.
     */
    private static Map<Integer, List<Segment>> seekPauseAndReadToEnd(String bootstrap) {
        Properties props = RecordRoundTrip.consumerProperties(bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4096);
        List<TopicPartition> all = RecordRoundTrip.partitionsOf(TOPIC, PARTITIONS);
        Map<Integer, List<Segment>> segments = new HashMap<>();
        all.forEach(tp -> segments.put(tp.partition(), new ArrayList<>(List.of(new Segment(0, new ArrayList<>())))));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            pollUntil(consumer, segments, s -> last(s.get(0)).records().size() >= 150);

            TopicPartition p0 = all.get(0);
            TopicPartition p1 = all.get(1);
            long intoAborted = firstAbortedOffset(committed.get(1));
            consumer.seek(p0, 0);
            consumer.seek(p1, intoAborted);
            segments.get(0).add(new Segment(0, new ArrayList<>()));
            segments.get(1).add(new Segment(intoAborted, new ArrayList<>()));
            List<TopicPartition> paused = List.of(all.get(2), all.get(3));
            consumer.pause(paused);
            int before2 = last(segments.get(2)).records().size();
            int before3 = last(segments.get(3)).records().size();
            pollUntil(consumer, segments, s -> last(s.get(0)).records().size() >= 150);
            assertEquals(before2, last(segments.get(2)).records().size(), "records of paused partition 2");
            assertEquals(before3, last(segments.get(3)).records().size(), "records of paused partition 3");

            consumer.resume(paused);
            pollUntil(consumer, segments, s -> all.stream().allMatch(tp -> consumer.position(tp) == ends.get(tp)));
        }
        return segments;
    }

    private static void pollUntil(KafkaConsumer<String, String> consumer, Map<Integer, List<Segment>> segments,
                                  Predicate<Map<Integer, List<Segment>>> done) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!done.test(segments)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("consumer did not get there within " + DEADLINE + ": " + sizes(segments));
            }
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                last(segments.get(r.partition())).records().add(new Rec(r.offset(), r.value()));
            }
        }
    }

    /** Each segment is the committed log from the first committed offset at or after its start; the last one whole. */
    private static void assertSegmentsAreTheCommittedLog(Map<Integer, List<Segment>> segments) {
        for (int p = 0; p < PARTITIONS; p++) {
            List<Segment> partition = segments.get(p);
            for (int i = 0; i < partition.size(); i++) {
                Segment segment = partition.get(i);
                long from = segment.from();
                List<Rec> log = committed.get(p).stream().filter(r -> r.offset() >= from).toList();
                List<Rec> expected = i == partition.size() - 1 ? log
                        : log.subList(0, Math.min(log.size(), segment.records().size()));
                assertEquals(expected, segment.records(), "partition " + p + " from offset " + from);
            }
        }
    }

    /** An offset inside the first aborted transaction: right after the first committed run. */
    private static long firstAbortedOffset(List<Rec> log) {
        for (int i = 1; i < log.size(); i++) {
            if (log.get(i).offset() > log.get(i - 1).offset() + 2) {
                return log.get(i - 1).offset() + 2; // past the commit marker, into the aborted records
            }
        }
        throw new AssertionError("no aborted transaction in " + log.size() + " records");
    }

    private static Map<Integer, List<Rec>> readAllDirectly() {
        Properties props = RecordRoundTrip.consumerProperties(cluster.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<TopicPartition> all = RecordRoundTrip.partitionsOf(TOPIC, PARTITIONS);
        Map<Integer, List<Segment>> segments = new HashMap<>();
        all.forEach(tp -> segments.put(tp.partition(), new ArrayList<>(List.of(new Segment(0, new ArrayList<>())))));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            pollUntil(consumer, segments, s -> all.stream().allMatch(tp -> consumer.position(tp) == ends.get(tp)));
        }
        Map<Integer, List<Rec>> log = new HashMap<>();
        segments.forEach((p, s) -> log.put(p, List.copyOf(last(s).records())));
        return log;
    }

    private static <T> T last(List<T> list) {
        return list.get(list.size() - 1);
    }

    private static Map<Integer, Integer> sizes(Map<Integer, List<Segment>> segments) {
        Map<Integer, Integer> sizes = new HashMap<>();
        segments.forEach((p, s) -> sizes.put(p, last(s).records().size()));
        return sizes;
    }
}
