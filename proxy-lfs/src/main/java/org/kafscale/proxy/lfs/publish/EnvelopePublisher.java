package org.kafscale.proxy.lfs.publish;

import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.BackendException;
import org.kafscale.proxy.core.backend.BrokerErrors;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.codec.KeyPartitioner;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.http.LfsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts an envelope record into Kafka for an object that is (or is about to be) in S3, in the two
 * steps of the seed report's fix (spec §4.11):
 *
 * <ol>
 *   <li>{@link #prepare} before anything touches S3: the topology must be fresh, the topic must
 *   exist, the partition is chosen and the partition's owner is connected to. Without a broker
 *   the request fails here and nothing was uploaded.</li>
 *   <li>{@link #publish} after the upload: the topology is checked again (TTL, topic id), then the
 *   record is produced with acks=all to the current owner; an answer that the broker does not
 *   lead the partition sends it to the next owner, three brokers at most.</li>
 * </ol>
 *
 * <p>When {@link #publish} fails, the object has already been dealt with: deleted when the record
 * was certainly not written, otherwise kept and counted as an orphan ({@link ObjectJanitor}). The
 * returned future completes only after that, so the bucket is settled when the client hears.
 *
 * <p>All work is asynchronous; nothing here blocks the calling thread.
 */
public final class EnvelopePublisher {
    private static final Logger LOGGER = LoggerFactory.getLogger(EnvelopePublisher.class);

    private final Topology topology;
    private final RoutingGate gate;
    private final KafkaRequestClient client;
    private final EventLoopGroup timers;
    private final ObjectJanitor janitor;
    private final PublishSettings settings;
    private final AtomicInteger roundRobin = new AtomicInteger();

    public EnvelopePublisher(Topology topology, RoutingGate gate, KafkaRequestClient client, EventLoopGroup timers,
                             ObjectJanitor janitor, PublishSettings settings) {
        this.topology = topology;
        this.gate = gate;
        this.client = client;
        this.timers = timers;
        this.janitor = janitor;
        this.settings = settings;
    }

    /** The janitor that deletes or counts objects whose record is not written. */
    public ObjectJanitor janitor() {
        return janitor;
    }

    /**
     * Step 1, before the upload: checks the topology, chooses the partition (explicit, else
     * Kafka's default partitioner on the key, else 0) and connects to its owner.
     *
     * <p>Fails with 503 {@code backend_unavailable} when no broker is known or reachable, 400
     * {@code invalid_topic} when the topic does not exist and 400 {@code invalid_partition} when
     * the partition does not.
     */
    public CompletableFuture<PublishTarget> prepare(String topic, OptionalInt partition, byte[] key) {
        return ensureRoutable("no broker is known (the topology is empty or stale)")
                .thenCompose(v -> topicLayout(topic))
                .thenCompose(layout -> {
                    int chosen = choosePartition(layout, partition, key);
                    return connect(topic, chosen, 0, null)
                            .thenApply(broker -> new PublishTarget(topic, chosen, layout.id(), broker));
                });
    }

    /**
     * Step 2, after the object is in S3 under {@code envelope.key()}: produces the envelope.
     * Completes normally once a broker acknowledged the record; otherwise fails with the
     * {@link LfsException} to answer, after the object was deleted or counted as an orphan.
     */
    public CompletableFuture<Void> publish(PublishTarget target, Envelope envelope, byte[] key, String requestId) {
        byte[] value = EnvelopeCodec.encode(envelope);
        CompletableFuture<Void> outcome = ensureStillValid(target)
                .thenCompose(v -> produce(target, key, value, 1));
        return outcome.handle((v, error) -> {
            if (error == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = Async.unwrap(error);
            if (cause instanceof MaybeWritten written) {
                janitor.keepOrphan(target.topic(), envelope.key(), requestId, ObjectJanitor.REASON_PRODUCE_FAILED);
                return CompletableFuture.<Void>failedFuture(written.answer);
            }
            LfsException answer = cause instanceof NotWritten notWritten ? notWritten.answer
                    : new LfsException(503, "backend_unavailable", "record not produced: " + cause);
            return janitor.deleteUnsent(target.topic(), envelope.key(), requestId, answer.getMessage())
                    .thenCompose(x -> CompletableFuture.<Void>failedFuture(answer));
        }).thenCompose(f -> f);
    }

    // ---- before the upload ----

    private CompletableFuture<Void> ensureRoutable(String message) {
        if (gate.routable()) {
            return CompletableFuture.completedFuture(null);
        }
        return gate.recheck().toCompletableFuture().thenAccept(open -> {
            if (!open) {
                throw LfsException.backendUnavailable(message);
            }
        });
    }

    private CompletableFuture<TopicLayout> topicLayout(String topic) {
        Optional<TopicLayout> known = topology.snapshot().topic(topic);
        if (known.isPresent()) {
            return CompletableFuture.completedFuture(known.get());
        }
        return topology.lookupTopics(List.of(topic), false).toCompletableFuture()
                .thenApply(snapshot -> snapshot.topic(topic).orElseThrow(() ->
                        LfsException.badRequest("invalid_topic", "topic " + topic + " does not exist")));
    }

    /** Explicit partition, else Kafka's default partitioner (murmur2 of the key), else 0. */
    static int choosePartition(TopicLayout layout, OptionalInt explicit, byte[] key) {
        int count = layout.partitions().size();
        if (explicit.isPresent()) {
            int p = explicit.getAsInt();
            if (p < 0 || !layout.partitions().containsKey(p)) {
                throw LfsException.badRequest("invalid_partition", "topic " + layout.name() + " has no partition " + p);
            }
            return p;
        }
        if (key != null && count > 0) {
            return KeyPartitioner.partitionOf(key, count);
        }
        return 0;
    }

    /** Connects to the partition's owner (or any broker when none is named), retrying with a pause. */
    private CompletableFuture<BrokerEndpoint> connect(String topic, int partition, int attempt, Throwable last) {
        if (attempt >= settings.connectAttempts()) {
            return CompletableFuture.failedFuture(LfsException.backendUnavailable("no broker reachable"
                    + (last == null ? "" : ": " + last.getMessage())));
        }
        Optional<BrokerEndpoint> broker = pick(topology.snapshot(), topic, partition);
        if (broker.isEmpty()) {
            return CompletableFuture.failedFuture(LfsException.backendUnavailable("no broker is known"));
        }
        return client.apiVersions(broker.get()).handle((versions, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(broker.get());
            }
            LOGGER.debug("lfs connect to {} failed (attempt {}): {}", broker.get(), attempt + 1, error.toString());
            if (attempt + 1 >= settings.connectAttempts()) {
                return connect(topic, partition, attempt + 1, error);
            }
            return pause().thenCompose(x -> connect(topic, partition, attempt + 1, error));
        }).thenCompose(f -> f);
    }

    private Optional<BrokerEndpoint> pick(TopologySnapshot snapshot, String topic, int partition) {
        OptionalInt owner = snapshot.owner(topic, partition);
        if (owner.isPresent()) {
            return snapshot.broker(owner.getAsInt());
        }
        List<Integer> ids = snapshot.brokerIds();
        if (ids.isEmpty()) {
            return Optional.empty();
        }
        return snapshot.broker(ids.get(Math.floorMod(roundRobin.getAndIncrement(), ids.size())));
    }

    private CompletableFuture<Void> pause() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        timers.next().schedule(() -> done.complete(null), settings.backoff().toMillis(), TimeUnit.MILLISECONDS);
        return done;
    }

    // ---- after the upload ----

    /**
     * The TTL (for brokers from etcd), then the topic's id from a fresh read of the source (an
     * unreadable source is 503 {@code metadata_unavailable} even within the TTL, as in the seed
     * report): a long upload may outlive both.
     */
    private CompletableFuture<Void> ensureStillValid(PublishTarget target) {
        return ensureRoutable("the topology went stale during the upload")
                .exceptionally(e -> {
                    throw new NotWritten(LfsException.unwrap(e));
                })
                .thenCompose(v -> topology.readTopics(List.of(target.topic())).toCompletableFuture()
                        .exceptionally(e -> {
                            throw new NotWritten(new LfsException(503, "metadata_unavailable",
                                    "cannot read the topic's metadata: " + Async.unwrap(e).getMessage()));
                        }))
                .thenAccept(snapshot -> {
                    Optional<TopicLayout> now = snapshot.topic(target.topic());
                    if (now.isEmpty()) {
                        throw new NotWritten(new LfsException(503, "metadata_unavailable",
                                "topic " + target.topic() + " was deleted during the upload"));
                    }
                    Uuid before = target.topicId();
                    Uuid after = now.get().id();
                    if (!Uuid.ZERO_UUID.equals(before) && !Uuid.ZERO_UUID.equals(after) && !before.equals(after)) {
                        throw new NotWritten(new LfsException(503, "metadata_unavailable",
                                "topic " + target.topic() + " was recreated during the upload"));
                    }
                });
    }

    private CompletableFuture<Void> produce(PublishTarget target, byte[] key, byte[] value, int brokerNumber) {
        return connect(target.topic(), target.partition(), 0, null)
                .exceptionally(e -> {
                    throw new NotWritten(LfsException.unwrap(e));
                })
                .thenCompose(broker -> sendTo(broker, target, key, value, brokerNumber));
    }

    private CompletableFuture<Void> sendTo(BrokerEndpoint broker, PublishTarget target, byte[] key, byte[] value,
                                           int brokerNumber) {
        var request = EnvelopeRecord.request(target, target.partition(), key, value, System.currentTimeMillis(),
                (int) settings.produceTimeout().toMillis());
        return client.send(broker, request).handle((response, error) -> {
            if (error != null) {
                return failedSend(broker, target, key, value, brokerNumber, error);
            }
            Errors answer = partitionError(response, target);
            if (answer == Errors.NONE) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (BrokerErrors.isLeaderClass(answer)) {
                return nextOwner(broker, target, key, value, brokerNumber, answer);
            }
            return CompletableFuture.<Void>failedFuture(new MaybeWritten(new LfsException(502, "backend_error",
                    broker + " refused the record: " + answer.name())));
        }).thenCompose(f -> f);
    }

    private CompletableFuture<Void> failedSend(BrokerEndpoint broker, PublishTarget target, byte[] key, byte[] value,
                                               int brokerNumber, Throwable error) {
        Throwable cause = Async.unwrap(error);
        boolean written = !(cause instanceof BackendException be) || be.requestWritten();
        if (cause instanceof IllegalStateException) {
            written = false; // the broker cannot take Produce at any usable version: nothing was sent
        }
        if (written) {
            return CompletableFuture.failedFuture(new MaybeWritten(new LfsException(502, "backend_error",
                    "produce to " + broker + " failed: " + cause.getMessage())));
        }
        if (brokerNumber >= settings.maxBrokers()) {
            return CompletableFuture.failedFuture(new NotWritten(LfsException.backendUnavailable(
                    "no broker took the record: " + cause.getMessage())));
        }
        return produce(target, key, value, brokerNumber + 1);
    }

    /** The broker does not lead the partition: forget the route, read the topology again, try the owner. */
    private CompletableFuture<Void> nextOwner(BrokerEndpoint broker, PublishTarget target, byte[] key, byte[] value,
                                              int brokerNumber, Errors answer) {
        LOGGER.debug("lfs produce to {} for {}-{}: {}", broker, target.topic(), target.partition(), answer);
        topology.invalidatePartition(target.topic(), target.partition());
        boolean idUnknown = answer == Errors.UNKNOWN_TOPIC_ID;
        if (brokerNumber >= settings.maxBrokers()) {
            // The leader no longer knows the id the upload began with: the topic was
            // deleted or recreated under the same name, whatever a lagging broker's metadata says.
            return CompletableFuture.failedFuture(new NotWritten(idUnknown
                    ? new LfsException(503, "metadata_unavailable", "topic " + target.topic()
                            + " was deleted or recreated during the upload (its brokers no longer know id "
                            + target.topicId() + ")")
                    : LfsException.backendUnavailable("no broker leads " + target.topic() + "-"
                            + target.partition() + " (last answer " + answer.name() + ")")));
        }
        CompletableFuture<Void> stillValid = idUnknown
                ? ensureStillValid(target) // a recreated topic is found by a fresh read, not by trying more brokers
                : ensureRoutable("the topology went stale while looking for the partition's leader")
                        .exceptionally(e -> {
                            throw new NotWritten(LfsException.unwrap(e));
                        });
        return stillValid
                .thenCompose(v -> topology.lookupTopics(List.of(target.topic()), false).toCompletableFuture()
                        .handle((s, e) -> null))
                .thenCompose(v -> produce(target, key, value, brokerNumber + 1));
    }

    private static Errors partitionError(ProduceResponseData response, PublishTarget target) {
        for (TopicProduceResponse topic : response.responses()) {
            for (PartitionProduceResponse p : topic.partitionResponses()) {
                if (p.index() == target.partition()) {
                    return Errors.forCode(p.errorCode());
                }
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    /** The record was certainly not written: the object may go. */
    private static final class NotWritten extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient LfsException answer;

        NotWritten(LfsException answer) {
            super(answer == null ? "not written" : answer.getMessage(), null, false, false);
            this.answer = answer == null ? LfsException.backendUnavailable("record not produced") : answer;
        }
    }

    /** The produce was sent and its fate is unknown or failed: the object stays, as an orphan. */
    private static final class MaybeWritten extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient LfsException answer;

        MaybeWritten(LfsException answer) {
            super(answer.getMessage(), null, false, false);
            this.answer = answer;
        }
    }
}
