package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.DebianPython;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.RegistryServer;

/**
 * Record validation end to end: a Java producer writes through the proxy to a real broker; the
 * records a rule refuses fail in its callback with the reason, and everything else lands.
 */
class ValidationIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    private static final String ORDER_SCHEMA = "{\"type\":\"object\",\"required\":[\"id\"],"
            + "\"properties\":{\"id\":{\"type\":\"integer\"}}}";
    private static final String ORDER_AVRO = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\","
            + "\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    @TempDir
    Path dir;

    @Test
    void invalidRecordsFailInTheProducersCallbackWithTheirReasonWhileValidPartitionsOfTheSameRequestLand()
            throws Exception {
        // Given: JSON Schema on orders.json (keys must be JSON), nothing on free
        KAFKA.cluster().createTopic("orders.json", 2);
        KAFKA.cluster().createTopic("free", 1);
        Files.writeString(dir.resolve("order.schema.json"), ORDER_SCHEMA);
        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                validation:
                  - topics: "orders\\\\..*"
                    key: {format: json}
                    value: {format: json-schema, schema: order.schema.json}
                """);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers",
                Map.of(ProxyConfig.GATEWAY_FILE, gateway.toString()));
             KafkaProducer<byte[], byte[]> producer = producer(proxy.bootstrap())) {
            // When: one request (linger) with a valid partition, a partition holding one bad
            // record among good ones, and a topic no rule covers
            Future<RecordMetadata> good = producer.send(record("orders.json", 0, "\"k\"", "{\"id\": 1}"));
            Future<RecordMetadata> before = producer.send(record("orders.json", 1, "\"k\"", "{\"id\": 2}"));
            Future<RecordMetadata> bad = producer.send(record("orders.json", 1, "\"k\"", "{\"id\": \"two\"}"));
            Future<RecordMetadata> badKey = producer.send(record("orders.json", 1, "not-json", "{\"id\": 3}"));
            Future<RecordMetadata> free = producer.send(record("free", 0, "anything", "not json at all"));
            producer.flush();

            // Then: the bad records say which side failed and why; their batch's good record fails with them
            assertEquals(0, good.get(30, TimeUnit.SECONDS).offset());
            String badReason = failure(bad).getMessage();
            assertTrue(badReason.contains("value: does not match the JSON Schema"), badReason);
            String badKeyReason = failure(badKey).getMessage();
            assertTrue(badKeyReason.contains("key: not JSON"), badKeyReason);
            // Kafka's producer fails a valid record of a refused batch with a message of its own
            ExecutionException sameBatch = assertThrows(ExecutionException.class,
                    () -> before.get(30, TimeUnit.SECONDS));
            assertTrue(String.valueOf(sameBatch.getCause().getMessage()).contains("batch"),
                    String.valueOf(sameBatch.getCause()));
            assertEquals(0, free.get(30, TimeUnit.SECONDS).offset());
            // What landed, read from the broker itself
            assertEquals(Map.of(0, 1L, 1, 0L), endOffsets("orders.json", 2));
            assertEquals(Map.of(0, 1L), endOffsets("free", 1));
            assertEquals(Map.of(0, List.of("{\"id\": 1}")),
                    RecordRoundTrip.consumeFromStart(KAFKA.cluster().bootstrapServers(), "orders.json", 2, 1));
            // ... and the two invalid records are counted under their rule
            assertEquals(2.0, RunningProxy.metricValue(proxy.healthBody("/metrics"),
                    "kafscale_proxy_validation_refused_records_total{topics=\"orders\\\\..*\"}"));
        }
    }

    @Test
    void avroRecordsAreCheckedAgainstTheRegistrysSchemaOfTheirId() throws Exception {
        // Given: a registry holding schema 1, and a rule that reads the registry wire format
        KAFKA.cluster().createTopic("orders.avro", 1);
        try (RegistryServer registry = RegistryServer.start().register(1, "AVRO", ORDER_AVRO)) {
            Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                    validation:
                      - topics: "orders\\\\.avro"
                        value: {format: avro, registry: "%s"}
                    """.formatted(registry.url()));
            try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers",
                    Map.of(ProxyConfig.GATEWAY_FILE, gateway.toString()));
                 KafkaProducer<byte[], byte[]> producer = producer(proxy.bootstrap())) {
                // When: each in a request of its own
                RecordMetadata first = producer.send(new ProducerRecord<>("orders.avro", wire(1, order(7)))).get(30,
                        TimeUnit.SECONDS);
                RecordMetadata second = producer.send(new ProducerRecord<>("orders.avro", wire(1, order(8)))).get(30,
                        TimeUnit.SECONDS);
                String garbage = failure(producer.send(new ProducerRecord<>("orders.avro",
                        wire(1, new byte[] {2, 40, 1})))).getMessage();
                String unknown = failure(producer.send(new ProducerRecord<>("orders.avro", wire(9, order(9)))))
                        .getMessage();
                String bare = failure(producer.send(new ProducerRecord<>("orders.avro", order(10)))).getMessage();

                // Then
                assertEquals(0, first.offset());
                assertEquals(1, second.offset());
                assertTrue(garbage.contains("not Avro of shop.Order"), garbage);
                assertTrue(unknown.contains("schema id 9 is not in the registry"), unknown);
                assertTrue(bare.contains("wire format"), bare);
                assertEquals(Map.of(0, 2L), endOffsets("orders.avro", 1));
                // Schema 1 was asked for once, the unknown id once: the cache served the rest
                assertEquals(2, registry.lookups());
            }
        }
    }

    @Test
    void confluentKafkaGetsInvalidRecordForTheRecordARuleRefusesAndItsValidRecordLands() throws Exception {
        // Given
        KAFKA.cluster().createTopic("orders.py", 1);
        Path gateway = Files.writeString(dir.resolve("gateway.yaml"), """
                validation:
                  - topics: "orders\\\\.py"
                    value: {format: json}
                """);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers",
                Map.of(ProxyConfig.GATEWAY_FILE, gateway.toString()))) {
            // When: librdkafka produces a valid then an invalid value, each flushed alone
            DebianPython.Result run = DebianPython.run(CONFLUENT_PRODUCER, Duration.ofSeconds(90),
                    List.of(proxy.bootstrap(), "orders.py"));

            // Then: one delivery line per record, the invalid one with Kafka's INVALID_RECORD (librdkafka
            // says "Broker failed to validate record": it shows neither error_message nor record errors)
            assertTrue(run.succeeded(), run.stderr());
            List<String> lines = run.stdout().lines().toList();
            assertEquals("ok 0", lines.get(0), run.stdout());
            assertTrue(lines.get(1).startsWith("error INVALID_RECORD"), run.stdout());
            assertEquals(Map.of(0, 1L), endOffsets("orders.py", 1));
        }
    }

    @Test
    void aVirtualClustersRuleChecksItsOwnTopicNameAndNoOtherTenantsTopic() throws Exception {
        // Given: team-a's rule over its own name "orders"; team-b has no rule
        KAFKA.cluster().createTopic("a.orders", 1);
        KAFKA.cluster().createTopic("b.orders", 1);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "brokers", ScramUsers.gatewaySettings(dir,
                "SCRAM-SHA-512", List.of("alice", "bob"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "a."
                    validation:
                      - topics: "orders"
                        value: {format: json}
                  - name: team-b
                    principals: ["User:bob"]
                    topicPrefix: "b."
                """));
             KafkaProducer<byte[], byte[]> alice = producer(ScramUsers.client(proxy.bootstrap(), "alice"));
             KafkaProducer<byte[], byte[]> bob = producer(ScramUsers.client(proxy.bootstrap(), "bob"))) {
            // When: both write a value that is not JSON to their own "orders"
            Future<RecordMetadata> fromAlice = alice.send(record("orders", 0, "k", "not json"));
            Future<RecordMetadata> fromBob = bob.send(record("orders", 0, "k", "not json"));

            // Then: alice's is refused with the reason, bob's lands
            assertTrue(failure(fromAlice).getMessage().contains("value: not JSON"));
            assertEquals(0, fromBob.get(30, TimeUnit.SECONDS).offset());
            assertEquals(Map.of(0, 0L), endOffsets("a.orders", 1));
            assertEquals(Map.of(0, 1L), endOffsets("b.orders", 1));
        }
    }

    /** Produces a valid then an invalid JSON value, flushing each, and prints each delivery's outcome. */
    private static final String CONFLUENT_PRODUCER = """
            import sys
            from confluent_kafka import Producer
            bootstrap, topic = sys.argv[1:3]
            producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 60000, "linger.ms": 0})
            def report(err, msg):
                print(f"error {err.name()} {err.str()}" if err else f"ok {msg.offset()}", flush=True)
            for value in ['{"id": 1}', '{"id": ']:
                producer.produce(topic, value=value, partition=0, on_delivery=report)
                producer.flush(60)
            """;

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return producer(props);
    }

    /** A byte-array producer with {@code props} (the bootstrap, and credentials if any) besides the test's settings. */
    private static KafkaProducer<byte[], byte[]> producer(Properties props) {
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 200);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(props);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String key, String value) {
        return new ProducerRecord<>(topic, partition, key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    /** The record's failure, which must be Kafka's InvalidRecordException. */
    private static InvalidRecordException failure(Future<RecordMetadata> sent) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> sent.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(InvalidRecordException.class, failed.getCause());
    }

    private static Map<Integer, Long> endOffsets(String topic, int partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> asked = new java.util.HashMap<>();
        for (int p = 0; p < partitions; p++) {
            asked.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<Integer, Long> ends = new java.util.HashMap<>();
        KAFKA.cluster().admin().listOffsets(asked).all().get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        return ends;
    }

    private static byte[] order(long id) throws Exception {
        Schema schema = new Schema.Parser().parse(ORDER_AVRO);
        GenericRecord record = new GenericData.Record(schema);
        record.put("id", id);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    /** {@code payload} in the registry wire format: magic byte 0, the schema id, the payload. */
    private static byte[] wire(int id, byte[] payload) {
        return ByteBuffer.allocate(5 + payload.length).put((byte) 0).putInt(id).put(payload).array();
    }

}
