package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Shutdown drains: {@code /readyz} turns 503, the listener stops accepting, requests already read
 * are answered in full, and only then do connections close. No acknowledged record is lost.
 */
class DrainIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final int LONG_POLL_MS = 4000;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(10);
    /** Time for the JVM to start its shutdown and exit, on top of the drain. */
    private static final Duration EXIT_ALLOWANCE = Duration.ofSeconds(5);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @Test
    void aLongPollFetchInFlightIsAnsweredInFullBeforeTheConnectionCloses() throws Exception {
        // Given: a client waiting on a long-poll Fetch of an empty partition
        KAFKA.cluster().createTopic("drain-poll", 1);
        try (RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), "single",
                Map.of(ProxyConfig.READY_PROBE_INTERVAL_MS, "600000"));
             RawKafkaConnection client = new RawKafkaConnection(proxy.port())) {
            Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
            RequestHeader poll = PendingFetch.send(proxy, client, "drain-poll", LONG_POLL_MS, DEADLINE);

            // When
            CompletableFuture<Void> drain = CompletableFuture.runAsync(
                    () -> proxy.runtime().drainAndClose(DRAIN_TIMEOUT));

            // Then: out of the Service and refusing connections while the Fetch is still owed
            Eventually.await(DEADLINE, "/readyz 503 while draining", () -> proxy.healthStatus("/readyz") == 503
                    && proxy.healthBody("/readyz").contains("draining"));
            Eventually.await(DEADLINE, "the listener to refuse connections", () -> {
                assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", proxy.port()).close());
            });
            assertTrue(!drain.isDone(), "the drain waits for the Fetch it owes an answer");
            // Then: the whole answer arrives, then the proxy closes the connection
            FetchResponse answer = client.read(poll);
            assertEquals(Errors.NONE, answer.error());
            assertEquals(Errors.NONE.code(), answer.data().responses().get(0).partitions().get(0).errorCode());
            assertTrue(client.closedByProxy(), "the connection closes once its last answer is written");
            drain.get(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void sigtermDuringAProduceStreamLosesNoAcknowledgedRecordAndExitsWithinTheDeadline() throws Exception {
        // Given: a proxy process, as in a container, with JSON logs
        String topic = "drain-stream";
        int partitions = 3;
        KAFKA.cluster().createTopic(topic, partitions);
        int port = FreePorts.next();
        Map<String, String> env = Map.of(
                ProxyConfig.ADDR, "127.0.0.1:" + port,
                ProxyConfig.ADVERTISED_HOST, "127.0.0.1",
                ProxyConfig.BACKENDS, KAFKA.cluster().bootstrapServers(),
                ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + FreePorts.next(),
                ProxyConfig.DRAIN_TIMEOUT_MS, Long.toString(DRAIN_TIMEOUT.toMillis()),
                ProxyConfig.LOG_FORMAT, "json");
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        try (ProxyProcess proxy = ProxyProcess.start(env, "-Xmx256m");
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerProperties("127.0.0.1:" + port))) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread stream = streamRecords(producer, topic, acknowledged, stop);
            Eventually.await(DEADLINE, "records to flow", () -> acknowledged.size() >= 500);

            // When
            long signalled = System.nanoTime();
            proxy.terminate();

            // Then: the process drains and exits within the drain deadline
            assertTrue(proxy.awaitExit(DRAIN_TIMEOUT.plus(EXIT_ALLOWANCE).plus(DEADLINE)), "the proxy did not exit");
            Duration exit = Duration.ofNanos(System.nanoTime() - signalled);
            assertTrue(exit.compareTo(DRAIN_TIMEOUT.plus(EXIT_ALLOWANCE)) < 0, "exited after " + exit);
            assertEquals(0, proxy.exitCode(), "a drained stop is a clean exit, not the JVM's 143 for SIGTERM");
            stop.set(true);
            stream.join();
            producer.close(DEADLINE);
            // Then: every record the proxy acknowledged is in Kafka
            Set<String> stored = readAll(topic, partitions);
            Set<String> lost = new HashSet<>(acknowledged);
            lost.removeAll(stored);
            assertTrue(lost.isEmpty(), lost.size() + " acknowledged records lost, e.g. " + lost.stream().limit(5).toList());
            assertLogIsJsonLines(proxy.output());
        }
    }

    /** Sends records until stopped, at most 100 unanswered at a time, noting each acknowledged value. */
    private static Thread streamRecords(KafkaProducer<String, String> producer, String topic, Set<String> acknowledged,
                                        AtomicBoolean stop) {
        Semaphore window = new Semaphore(100);
        Thread thread = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                String value = "v" + i;
                if (!window.tryAcquire()) {
                    Thread.onSpinWait();
                    i--;
                    continue;
                }
                producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.add(value);
                    }
                    window.release();
                });
            }
        }, "record-stream");
        thread.start();
        return thread;
    }

    private static Properties producerProperties(String bootstrap) {
        Properties props = RecordRoundTrip.idempotentProducerProperties(bootstrap);
        // Once the proxy is gone, give up quickly: the test is about what was acknowledged before.
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 8000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5000);
        return props;
    }

    /** Every value in the topic, read from the brokers directly. */
    private static Set<String> readAll(String topic, int partitions) {
        return RecordRoundTrip.readAllValues(KAFKA.cluster().bootstrapServers(), topic, partitions, DEADLINE);
    }

    /**
     * With KAFSCALE_PROXY_LOG_FORMAT=json every line after the switch is one JSON event, and a
     * connection's lines carry its id, address and principal as fields.
     */
    private static void assertLogIsJsonLines(String output) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<String> lines = output.lines().dropWhile(l -> !l.startsWith("{")).toList();
        assertTrue(lines.size() > 2, "JSON log lines expected in:\n" + output);
        boolean drainLogged = false;
        boolean closeWithFields = false;
        for (String line : lines) {
            JsonNode event = json.readTree(line);
            assertTrue(event.has("level") && event.has("formattedMessage"), line);
            drainLogged |= event.get("formattedMessage").asText().startsWith("Draining");
            // A line about a client connection has the connection's fields as fields of its own.
            closeWithFields |= event.get("formattedMessage").asText().startsWith("Connection closed")
                    && event.path("conn").asText().matches("c[0-9a-z]+") && event.has("client")
                    && event.has("principal");
        }
        assertTrue(drainLogged, "the drain is logged:\n" + output);
        assertTrue(closeWithFields, "a drained connection's close is logged with its fields:\n" + output);
    }
}
