package org.kafscale.proxy.lfs.tracker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.codec.KeyPartitioner;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.codec.RecordSets;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces ops events to {@code __lfs_ops_state} through the proxy's own topology (each batch to
 * the owner of its partition, partitioned by key like Kafka's default partitioner).
 *
 * <p>As in the original: events wait in a queue of 10,000 and are dropped when it is full; a batch
 * goes out at {@code batchSize} events or every {@code flushInterval}; five failed batches in a row
 * open a breaker that drops events until 30 s after the last success. The request path only
 * enqueues.
 *
 * <p>The interval's timer is set by the first event into an empty queue, not run all the time:
 * a ticking task woke the housekeeping thread ten times a second on a proxy that tracked
 * nothing, the largest idle cost of an LFS-enabled proxy (1.6 ms of CPU a second here).
 */
public final class KafkaTracker implements LfsTracker {
    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaTracker.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int QUEUE_CAPACITY = 10_000;
    private static final int BREAKER_FAILURES = 5;
    private static final long BREAKER_RESET_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final short ACKS_LEADER = 1;
    private static final int PRODUCE_TIMEOUT_MS = 15_000;
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final TrackerSettings settings;
    private final Topology topology;
    private final KafkaRequestClient kafka;
    private final ScheduledExecutorService scheduler;
    private final BlockingQueue<TrackerEvent> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final AtomicBoolean flushing = new AtomicBoolean();
    /** Whether a flush is scheduled for the events queued now. */
    private final AtomicBoolean flushTimerSet = new AtomicBoolean();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private volatile int consecutiveFailures;
    private volatile long lastSuccessNanos = System.nanoTime();

    private KafkaTracker(TrackerSettings settings, Topology topology, KafkaRequestClient kafka,
                         ScheduledExecutorService scheduler) {
        this.settings = settings;
        this.topology = topology;
        this.kafka = kafka;
        this.scheduler = scheduler;
    }

    public static KafkaTracker start(TrackerSettings settings, Topology topology, KafkaRequestClient kafka,
                                     ScheduledExecutorService scheduler) {
        KafkaTracker tracker = new KafkaTracker(settings, topology, kafka, scheduler);
        if (settings.ensureTopic()) {
            tracker.ensureTopic();
        }
        return tracker;
    }

    @Override
    public void emit(TrackerEvent event) {
        if (breakerOpen()) {
            dropped.incrementAndGet();
            return;
        }
        if (!queue.offer(event)) {
            dropped.incrementAndGet();
            return;
        }
        flushSoon();
    }

    /**
     * A full batch goes now; fewer events go when the interval's timer fires (set once for them).
     * Once the scheduler is shut down (the proxy stopping), events stay queued for {@link #close}.
     */
    private void flushSoon() {
        try {
            if (queue.size() >= settings.batchSize()) {
                scheduler.execute(this::flush);
            } else if (!queue.isEmpty() && flushTimerSet.compareAndSet(false, true)) {
                scheduler.schedule(() -> {
                    flushTimerSet.set(false);
                    flush();
                }, Math.max(1, settings.flushInterval().toMillis()), TimeUnit.MILLISECONDS);
            }
        } catch (RejectedExecutionException stopping) {
            flushTimerSet.set(false);
        }
    }

    /** Events produced so far (for tests and logs). */
    public long sent() {
        return sent.get();
    }

    /** Events dropped (queue full, breaker open, failed batches). */
    public long dropped() {
        return dropped.get();
    }

    private boolean breakerOpen() {
        return consecutiveFailures >= BREAKER_FAILURES && System.nanoTime() - lastSuccessNanos < BREAKER_RESET_NANOS;
    }

    private CompletableFuture<Void> flush() {
        if (queue.isEmpty() || !flushing.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        List<TrackerEvent> batch = new ArrayList<>(settings.batchSize());
        queue.drainTo(batch, settings.batchSize());
        return topology.lookupTopics(List.of(settings.topic()), false).toCompletableFuture()
                .thenCompose(snapshot -> produce(snapshot, batch))
                .whenComplete((ok, error) -> {
                    if (error == null) {
                        consecutiveFailures = 0;
                        lastSuccessNanos = System.nanoTime();
                        sent.addAndGet(batch.size());
                    } else {
                        consecutiveFailures++;
                        dropped.addAndGet(batch.size());
                        LOGGER.debug("lfs tracker batch of {} events dropped: {}", batch.size(), error.toString());
                    }
                    flushing.set(false);
                    // What came meanwhile, or what a flush skipped while this one ran.
                    flushSoon();
                });
    }

    private CompletableFuture<Void> produce(TopologySnapshot snapshot, List<TrackerEvent> batch) {
        TopicLayout layout = snapshot.topic(settings.topic()).orElseThrow(() ->
                new IllegalStateException("topic " + settings.topic() + " does not exist"));
        Map<Integer, List<RecordSets.KeyValue>> byPartition = new HashMap<>();
        long now = System.currentTimeMillis();
        int partitions = Math.max(1, layout.partitions().size());
        for (TrackerEvent event : batch) {
            byte[] key = event.kafkaKey().getBytes(StandardCharsets.UTF_8);
            int partition = KeyPartitioner.partitionOf(key, partitions);
            byPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(new RecordSets.KeyValue(key, json(event)));
        }
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        byPartition.forEach((partition, records) -> sends.add(send(snapshot, layout, partition, now, records)));
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Void> send(TopologySnapshot snapshot, TopicLayout layout, int partition,
                                         long timestampMillis, List<RecordSets.KeyValue> records) {
        OptionalInt owner = snapshot.owner(layout.name(), partition);
        BrokerEndpoint broker = owner.isPresent() ? snapshot.broker(owner.getAsInt()).orElseThrow()
                : snapshot.brokers().values().stream().findFirst().orElseThrow(() ->
                        new IllegalStateException("no broker known"));
        TopicProduceData topic = new TopicProduceData().setName(layout.name()).setTopicId(layout.id())
                .setPartitionData(List.of(new PartitionProduceData().setIndex(partition).setRecords(
                        RecordSets.uncompressed(timestampMillis, records))));
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_LEADER).setTimeoutMs(PRODUCE_TIMEOUT_MS)
                .setTopicData(new TopicProduceDataCollection(List.of(topic).iterator()));
        return kafka.send(broker, OutboundRequests.produce(data)).thenAccept(response -> response.responses()
                .forEach(t -> t.partitionResponses().forEach(p -> {
                    if (p.errorCode() != Errors.NONE.code()) {
                        topology.invalidatePartition(layout.name(), partition);
                        throw Errors.forCode(p.errorCode()).exception();
                    }
                })));
    }

    private static byte[] json(TrackerEvent event) {
        try {
            return JSON.writeValueAsBytes(event.fields());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a tracker event", e);
        }
    }

    /** CreateTopics once at start-up; TOPIC_ALREADY_EXISTS is fine, other failures are logged. */
    private void ensureTopic() {
        TopologySnapshot snapshot = topology.snapshot();
        if (snapshot.topic(settings.topic()).isPresent() || !snapshot.hasBrokers()) {
            return;
        }
        BrokerEndpoint broker = snapshot.brokers().values().iterator().next();
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName(settings.topic()).setNumPartitions(settings.partitions())
                .setReplicationFactor(settings.replicationFactor()));
        kafka.send(broker, OutboundRequests.createTopics(new CreateTopicsRequestData()
                .setTopics(topics).setTimeoutMs(PRODUCE_TIMEOUT_MS))).whenComplete((response, error) -> {
                    if (error != null) {
                        LOGGER.warn("cannot create the LFS tracker topic {}: {}", settings.topic(), error.toString());
                        return;
                    }
                    response.topics().forEach(t -> {
                        if (t.errorCode() != Errors.NONE.code() && t.errorCode() != Errors.TOPIC_ALREADY_EXISTS.code()) {
                            LOGGER.warn("cannot create the LFS tracker topic {}: {}", t.name(),
                                    Errors.forCode(t.errorCode()).name());
                        }
                    });
                    topology.lookupTopics(List.of(settings.topic()), false);
                });
    }

    /** Sends one last batch of what is queued, waiting a bounded time (best effort). */
    @Override
    public void close() {
        try {
            flush().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOGGER.debug("lfs tracker: last batch not sent at shutdown: {}", e.toString());
        }
    }
}
