package org.kafscale.proxy.app.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster state the representative requests of {@link RepresentativeRequests} name, made once
 * for the test class with real clients straight to the brokers: a topic with data, a group with a
 * committed offset, an open transaction, and fresh resources for the requests that destroy
 * what they name (each call gets its own, so the call through the proxy and the direct one see
 * the same thing).
 */
final class ApiTestState implements AutoCloseable {
    static final String TOPIC = "every-api";
    /** A topic of its own for WriteTxnMarkers, which appends control records to what it names. */
    static final String MARKER_TOPIC = "every-api-markers";
    static final String GROUP = "every-api-group";
    static final String OPEN_TRANSACTION = "every-api-open-txn";
    /** Groups of the newer protocols, each with a member (until its session ends), for the Describe APIs. */
    static final String CONSUMER_GROUP = "every-api-848-group";
    static final String SHARE_GROUP = "every-api-share";
    static final String STREAMS_GROUP = "every-api-streams-group";
    /** A transactional id that InitProducerId is asked about (initialised once first, so its coordinator has it loaded). */
    static final String INIT_TRANSACTION = "every-api-init";
    static final int PARTITIONS = 3;
    static final String FRESH = "-fresh-";
    private static final Logger LOGGER = LoggerFactory.getLogger(ApiTestState.class);
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private final KafkaCluster cluster;
    private final Uuid topicId;
    private final Uuid markerTopicId;
    private final KafkaProducer<String, String> openTransaction;
    private final long openProducerId;
    private final short openProducerEpoch;
    private final AtomicInteger fresh = new AtomicInteger();

    private ApiTestState(KafkaCluster cluster, KafkaProducer<String, String> openTransaction, TransactionDescription open) {
        this.cluster = cluster;
        this.topicId = cluster.topicId(TOPIC);
        this.markerTopicId = cluster.topicId(MARKER_TOPIC);
        this.openTransaction = openTransaction;
        this.openProducerId = open.producerId();
        this.openProducerEpoch = (short) open.producerEpoch();
    }

    static ApiTestState create(KafkaCluster cluster) throws Exception {
        cluster.createTopic(TOPIC, PARTITIONS);
        cluster.createTopic(MARKER_TOPIC, 1);
        RecordRoundTrip.produce(cluster.bootstrapServers(), TOPIC, PARTITIONS, 30);
        commitOffset(cluster, GROUP);
        try (KafkaProducer<String, String> init = transactionalProducer(cluster.bootstrapServers(), INIT_TRANSACTION)) {
            init.initTransactions();
        }
        KafkaProducer<String, String> producer = transactionalProducer(cluster.bootstrapServers(), OPEN_TRANSACTION);
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(TOPIC, 1, "k", "in-open-transaction")).get(30, TimeUnit.SECONDS);
        TransactionDescription[] open = new TransactionDescription[1];
        Eventually.await(SETTLE, "the open transaction to be described", () -> {
            open[0] = cluster.admin().describeTransactions(List.of(OPEN_TRANSACTION)).all()
                    .get(10, TimeUnit.SECONDS).get(OPEN_TRANSACTION);
            if (open[0].topicPartitions().isEmpty()) {
                throw new AssertionError("no partition in the transaction yet");
            }
        });
        ApiTestState state = new ApiTestState(cluster, producer, open[0]);
        try (ApiConnections direct = ApiConnections.directOnly(cluster)) {
            for (var join : List.of(RepresentativeRequests.consumerGroupJoin(CONSUMER_GROUP),
                    RepresentativeRequests.shareGroupJoin(SHARE_GROUP), RepresentativeRequests.streamsGroupJoin(STREAMS_GROUP))) {
                short version = ApiKeys.forId(join.body().apiKey()).latestVersion();
                var joined = direct.direct(join.direct(), join.body(), version);
                // A broker without share or streams groups refuses; their Describe answers are then compared as errors
                LOGGER.info("every-api state: {} -> {}", join.body().getClass().getSimpleName(),
                        joined.answered() ? joined.answer().errorCounts() : joined.failure());
            }
        }
        return state;
    }

    KafkaCluster cluster() {
        return cluster;
    }

    Uuid topicId() {
        return topicId;
    }

    Uuid markerTopicId() {
        return markerTopicId;
    }

    long openProducerId() {
        return openProducerId;
    }

    short openProducerEpoch() {
        return openProducerEpoch;
    }

    /**
     * A name no other call uses. Its "-fresh-n" tail is what {@link AnswerShape} ignores when it
     * compares two answers, as each of the two calls names its own resource.
     */
    String freshName(String prefix) {
        return prefix + FRESH + fresh.incrementAndGet();
    }

    /** A client-generated member id (KIP-848 members choose their own). */
    static String memberId() {
        return Uuid.randomUuid().toString();
    }

    /** A new topic with one partition, ready to be deleted. */
    String freshTopic() {
        String topic = freshName("every-api-doomed-topic");
        cluster.createTopic(topic, 1);
        return topic;
    }

    /** A new empty group holding a committed offset on {@link #TOPIC} partition 0, ready to be deleted. */
    String freshGroupWithOffset() {
        String group = freshName("every-api-doomed-group");
        try {
            commitOffset(cluster, group);
        } catch (Exception e) {
            throw new IllegalStateException("cannot commit an offset for " + group, e);
        }
        return group;
    }

    static void commitOffset(KafkaCluster cluster, String group) throws Exception {
        cluster.admin().alterConsumerGroupOffsets(group, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(5)))
                .all().get(30, TimeUnit.SECONDS);
    }

    static KafkaProducer<String, String> transactionalProducer(String bootstrap, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    @Override
    public void close() {
        openTransaction.close(Duration.ofSeconds(5));
    }
}
