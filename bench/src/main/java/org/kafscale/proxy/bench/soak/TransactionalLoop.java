package org.kafscale.proxy.bench.soak;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A transactional read-process-write loop through one proxy replica: a read_committed consumer
 * (group {@value #GROUP}) reads the soak's input, a transactional producer writes one record per
 * input record to the output topic, {@code <partition>:<offset>:<value>} of the input, and commits
 * the consumer's offsets in the same transaction ({@code sendOffsetsToTransaction}).
 *
 * <p>Errors are handled as Kafka's producer documentation says: a fatal one (fenced, out of
 * sequence, not authorized) closes the producer, and a new one with the same transactional id
 * fences the old and finishes its transaction; any other is aborted (a new producer when even
 * the abort fails, for example after a commit that timed out). Either way the consumer goes back
 * to the group's committed offsets (read stably: a read_committed consumer waits for a pending
 * transactional commit) and processes again, so each input record ends up in exactly one
 * committed transaction.
 */
final class TransactionalLoop implements Workload, AutoCloseable {
    static final String GROUP = "soak-eos";

    private final String name;
    private final String bootstrap;
    private final String input;
    private final String output;
    private final Thread thread;
    private final AtomicLong lastCommitNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong committedTransactions = new AtomicLong();
    private final AtomicLong committedRecords = new AtomicLong();
    private final AtomicLong aborted = new AtomicLong();
    private final AtomicLong producersReplaced = new AtomicLong();
    private final KafkaConsumer<String, String> consumer;
    private KafkaProducer<String, String> producer;
    private volatile boolean stopped;

    TransactionalLoop(String name, String bootstrap, String input, String output) {
        this.name = name;
        this.bootstrap = bootstrap;
        this.input = input;
        this.output = output;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, GROUP,
                ConsumerConfig.CLIENT_ID_CONFIG, name + "-consumer",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) GroupMember.SESSION_TIMEOUT.toMillis()),
                new StringDeserializer(), new StringDeserializer());
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** A producer with this loop's transactional id, initialised (retried while the coordinator is away). */
    private KafkaProducer<String, String> newProducer() {
        KafkaProducer<String, String> created = create();
        while (!stopped) {
            try {
                created.initTransactions();
                return created;
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                // the coordinator is moving (a broker down, a replica restarting): initTransactions may be retried
            } catch (KafkaException e) {
                created.close(Duration.ZERO);
                created = create();
            }
        }
        return created;
    }

    private KafkaProducer<String, String> create() {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.CLIENT_ID_CONFIG, name + "-producer",
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, name,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(), new StringSerializer());
    }

    private void run() {
        try {
            producer = newProducer();
            consumer.subscribe(List.of(input));
            while (!stopped) {
                ConsumerRecords<String, String> records;
                try {
                    records = consumer.poll(Duration.ofMillis(500));
                } catch (WakeupException e) {
                    return;
                } catch (KafkaException e) {
                    continue; // the group's coordinator moving: the next poll rejoins
                }
                if (!records.isEmpty()) {
                    process(records);
                }
            }
        } finally {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(30)));
            if (producer != null) {
                producer.close(Duration.ofSeconds(30));
            }
        }
    }

    private void process(ConsumerRecords<String, String> records) {
        try {
            producer.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            for (ConsumerRecord<String, String> record : records) {
                producer.send(new ProducerRecord<>(output, record.key(),
                        record.partition() + ":" + record.offset() + ":" + record.value()));
                next.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
            }
            producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
            producer.commitTransaction();
            committedTransactions.incrementAndGet();
            committedRecords.addAndGet(records.count());
            lastCommitNanos.set(System.nanoTime());
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException
                 | UnsupportedVersionException | InvalidProducerEpochException e) {
            replaceProducer();
            rewind();
        } catch (RuntimeException e) {
            // KafkaException, or IllegalStateException from a producer left mid-commit: abort, or start afresh
            aborted.incrementAndGet();
            try {
                producer.abortTransaction();
            } catch (RuntimeException abortFailed) {
                replaceProducer();
            }
            rewind();
        }
    }

    private void replaceProducer() {
        producersReplaced.incrementAndGet();
        producer.close(Duration.ZERO);
        producer = newProducer(); // initTransactions fences the old one and finishes its transaction
    }

    /** Back to the committed offsets (or the start) of every partition assigned, until that succeeds. */
    private void rewind() {
        while (!stopped) {
            try {
                Set<TopicPartition> assigned = consumer.assignment();
                Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned, Duration.ofSeconds(30));
                for (TopicPartition partition : assigned) {
                    OffsetAndMetadata offset = committed.get(partition);
                    if (offset == null) {
                        consumer.seekToBeginning(List.of(partition));
                    } else {
                        consumer.seek(partition, offset);
                    }
                }
                return;
            } catch (WakeupException e) {
                return;
            } catch (KafkaException e) {
                // the coordinator unreachable for now: ask again
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long lastSuccessNanos() {
        return lastCommitNanos.get();
    }

    long committedTransactions() {
        return committedTransactions.get();
    }

    long committedRecords() {
        return committedRecords.get();
    }

    long aborted() {
        return aborted.get();
    }

    long producersReplaced() {
        return producersReplaced.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        consumer.wakeup();
        thread.join();
    }
}
