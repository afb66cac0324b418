package org.kafscale.proxy.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * The soak's transactional loop, on a real broker, through the one recovery a chaos run rarely
 * forces: its producer fenced mid-stream (another producer initialising the same transactional
 * id, as a restarted replica's loop does). The loop must replace its producer, go back to the
 * group's committed offsets and process again, and the committed output must still hold each
 * input record exactly once, as the soak's own verdict judges it. The 30-minute soak run had 0
 * aborts and 0 replaced producers, so without this the path behind its exactly-once verdict was
 * never taken.
 */
class TransactionalLoopIT {
    private static final String INPUT = "eos-in";
    private static final String OUTPUT = "eos-out";
    private static final int PARTITIONS = 3;
    private static final String LOOP = "eos-test";

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @Test
    void aFencedLoopReplacesItsProducerAndTheOutputHoldsEveryInputRecordOnce() throws Exception {
        // Given input on three partitions and the loop working through it
        String bootstrap = KAFKA.cluster().bootstrapServers();
        KAFKA.cluster().createTopic(INPUT, PARTITIONS);
        KAFKA.cluster().createTopic(OUTPUT, PARTITIONS);
        produceInput(bootstrap, 0, 2_000);
        try (TransactionalLoop loop = new TransactionalLoop(LOOP, bootstrap, INPUT, OUTPUT)) {
            loop.start();
            Eventually.await(Duration.ofMinutes(1), "the loop committing its first records",
                    () -> loop.committedRecords() > 0);

            // When another producer takes its transactional id, and more input arrives
            fence(bootstrap);
            produceInput(bootstrap, 2_000, 2_000);

            // Then the loop replaces its producer and commits offsets up to the end of the input
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                Eventually.await(Duration.ofMinutes(2), "the loop's group committing every input offset",
                        () -> assertTrue(everyInputOffsetCommitted(admin)));
            }
            assertTrue(loop.producersReplaced() >= 1, "producers replaced: " + loop.producersReplaced());
        }

        // And the committed output holds each input record once, by the soak's own verdict
        Map<Integer, Map<Long, String>> input = SoakMain.readLog(bootstrap, INPUT, PARTITIONS, "read_uncommitted");
        Checks checks = new Checks();
        checks.exactlyOnce(input, SoakMain.readLog(bootstrap, OUTPUT, PARTITIONS, "read_committed"), "");
        assertTrue(checks.allPassed(), checks.verdicts().toString());
        assertEquals(4_000, input.values().stream().mapToInt(Map::size).sum());
    }

    private static void produceInput(String bootstrap, int from, int count) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
            IntStream.range(from, from + count).forEach(i ->
                    producer.send(new ProducerRecord<>(INPUT, i % PARTITIONS, "k" + i, "v" + i)));
        }
    }

    /** initTransactions with the loop's transactional id bumps the epoch: the loop's producer is fenced. */
    private static void fence(String bootstrap) {
        try (KafkaProducer<String, String> usurper = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, LOOP), new StringSerializer(), new StringSerializer())) {
            usurper.initTransactions();
        }
    }

    private static boolean everyInputOffsetCommitted(Admin admin) throws Exception {
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(INPUT, p)).toList();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(
                partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all().get();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(TransactionalLoop.GROUP)
                .partitionsToOffsetAndMetadata().get();
        return partitions.stream().allMatch(p -> committed.get(p) != null
                && committed.get(p).offset() >= ends.get(p).offset());
    }
}
