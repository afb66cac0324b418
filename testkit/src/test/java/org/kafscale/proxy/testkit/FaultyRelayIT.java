package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay forwards Kafka frames unchanged both ways and breaks exactly the Fetch response an
 * armed fault hits, as a raw client connected to it through the relay sees it.
 */
class FaultyRelayIT {
    private static final String TOPIC = "relayed";
    private static final int RECORDS = 10;
    private static final short FETCH_VERSION = 12;
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private static KafkaCluster cluster;
    private FaultyRelay relay;

    @BeforeAll
    static void start() throws Exception {
        cluster = KafkaCluster.start(1);
        cluster.createTopic(TOPIC, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @BeforeEach
    void startRelay() {
        relay = FaultyRelay.start(cluster.brokerAddress(cluster.brokerIds().get(0)));
    }

    @AfterEach
    void closeRelay() {
        relay.close();
    }

    @Test
    void relaysFetchUnchangedWhenNoFaultIsArmed() throws Exception {
        // Given
        try (RawConnection connection = new RawConnection(relay.port())) {
            // When
            FetchResponse response = connection.send(fetchFromStart());
            // Then
            assertEquals(RECORDS, recordCount(response));
            assertFalse(relay.faultApplied());
            assertEquals(1, relay.connectionsAccepted());
        }
    }

    @Test
    void armedFaultLeavesResponsesToOtherRequestsAlone() throws Exception {
        // Given
        relay.arm(FaultyRelay.Fault.TRUNCATED_FRAME);
        try (RawConnection connection = new RawConnection(relay.port())) {
            // When
            ApiVersionsResponse versions = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
            // Then
            assertEquals(Errors.NONE.code(), versions.data().errorCode());
            assertFalse(relay.faultApplied(), "the fault waits for a Fetch response");
        }
    }

    @Test
    void truncatedFrameIsACompleteFrameOfHalfTheSizeWithTheFirstHalfOfTheBody() throws Exception {
        // Given: the size of an intact answer
        int intactSize;
        try (RawConnection connection = new RawConnection(relay.port())) {
            intactSize = connection.sendAndReadFrame(fetchFromStart()).length;
        }
        relay.arm(FaultyRelay.Fault.TRUNCATED_FRAME);
        try (RawConnection connection = new RawConnection(relay.port())) {
            // When
            byte[] truncated = connection.sendAndReadFrame(fetchFromStart());
            // Then: a whole frame that does not parse, and the connection stays usable
            assertEquals(intactSize / 2, truncated.length);
            assertTrue(relay.faultApplied());
            assertThrows(RuntimeException.class, () -> AbstractResponse.parseResponse(ByteBuffer.wrap(truncated),
                    connection.lastHeader));
            assertEquals(RECORDS, recordCount(connection.send(fetchFromStart())), "the fault applies once");
        }
    }

    @Test
    void closeMidResponseSendsTheFullSizeAndHalfTheBodyThenCloses() throws Exception {
        // Given
        relay.arm(FaultyRelay.Fault.CLOSE_MID_RESPONSE);
        try (RawConnection connection = new RawConnection(relay.port())) {
            // When
            connection.write(fetchFromStart());
            int announced = connection.in.readInt();
            byte[] rest = connection.in.readAllBytes();
            // Then
            assertEquals(announced / 2, rest.length, "half the body, then end of stream");
            assertTrue(relay.faultApplied());
        }
    }

    @Test
    void silenceKeepsTheConnectionOpenAndForwardsNothingMore() throws Exception {
        // Given
        relay.arm(FaultyRelay.Fault.SILENCE);
        try (RawConnection connection = new RawConnection(relay.port())) {
            // When
            connection.write(fetchFromStart());
            Eventually.await(DEADLINE, "the broker's answer to reach the relay", relay::faultApplied);
            connection.write(new ApiVersionsRequest.Builder().build((short) 3));
            // Then: no byte and no end of stream within the read timeout
            connection.socket.setSoTimeout(1_000);
            assertThrows(SocketTimeoutException.class, connection.in::read);
        }
    }

    @Test
    void stallHoldsAnswersForAWhileThenDeliversThemIntact() throws Exception {
        // Given
        try (RawConnection connection = new RawConnection(relay.port())) {
            relay.stall(5_000);
            // When
            connection.write(fetchFromStart());
            // Then: nothing while stalled (well inside the stall), then the whole answer
            connection.socket.setSoTimeout(1_000);
            assertThrows(SocketTimeoutException.class, connection.in::read);
            connection.socket.setSoTimeout((int) DEADLINE.toMillis());
            byte[] frame = new byte[connection.in.readInt()];
            connection.in.readFully(frame);
            FetchResponse response = (FetchResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(frame),
                    connection.lastHeader);
            assertEquals(RECORDS, recordCount(response));
            assertFalse(relay.faultApplied(), "a stall is not an armed fault");
        }
    }

    @Test
    void connectionsAfterAFaultRelayNormally() throws Exception {
        // Given: a connection broken by the fault
        relay.arm(FaultyRelay.Fault.CLOSE_MID_RESPONSE);
        try (RawConnection broken = new RawConnection(relay.port())) {
            broken.write(fetchFromStart());
            broken.in.readAllBytes();
        }
        // When
        try (RawConnection fresh = new RawConnection(relay.port())) {
            FetchResponse response = fresh.send(fetchFromStart());
            // Then
            assertEquals(RECORDS, recordCount(response));
            assertEquals(2, relay.connectionsAccepted());
        }
    }

    private static FetchRequest fetchFromStart() {
        FetchRequestData data = new FetchRequestData()
                .setReplicaId(FetchRequest.CONSUMER_REPLICA_ID)
                .setMaxWaitMs(100).setMinBytes(1).setMaxBytes(1 << 20)
                .setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchTopic().setTopic(TOPIC).setPartitions(List.of(new FetchPartition()
                        .setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20)))));
        return new FetchRequest(data, FETCH_VERSION);
    }

    private static int recordCount(FetchResponse response) {
        var partition = response.data().responses().get(0).partitions().get(0);
        assertEquals(Errors.NONE.code(), partition.errorCode());
        int count = 0;
        for (Record ignored : FetchResponse.recordsOrFail(partition).records()) {
            count++;
        }
        return count;
    }

    /** One Kafka connection driven request by request with kafka-clients' request and response classes. */
    private static final class RawConnection implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        RequestHeader lastHeader;
        private int nextCorrelationId = 1;

        RawConnection(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout((int) DEADLINE.toMillis());
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        }

        void write(AbstractRequest request) throws IOException {
            lastHeader = new RequestHeader(request.apiKey(), request.version(), "relay-test", nextCorrelationId++);
            ByteBuffer bytes = request.serializeWithHeader(lastHeader);
            out.writeInt(bytes.remaining());
            out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            out.flush();
        }

        byte[] sendAndReadFrame(AbstractRequest request) throws IOException {
            write(request);
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            return frame;
        }

        @SuppressWarnings("unchecked")
        <R extends AbstractResponse> R send(AbstractRequest request) throws IOException {
            byte[] frame = sendAndReadFrame(request);
            return (R) AbstractResponse.parseResponse(ByteBuffer.wrap(frame), lastHeader);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
