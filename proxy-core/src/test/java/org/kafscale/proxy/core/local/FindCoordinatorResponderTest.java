package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.local.MetadataResponderTest.completed;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.CoordinatorKind;
import org.kafscale.proxy.core.topology.TopologySnapshot;

class FindCoordinatorResponderTest {

    private static final String PROXY_HOST = "proxy.example";
    private static final int PROXY_PORT = 19092;

    private static final TopologySnapshot CLUSTER = TopologySnapshot.of("cluster-a", 1,
            List.of(new BrokerEndpoint(1, "b1.internal", 9092, null),
                    new BrokerEndpoint(2, "b2.internal", 9092, null),
                    new BrokerEndpoint(3, "b3.internal", 9092, null)),
            List.of());

    private StubTopology topology = new StubTopology(CLUSTER)
            .withCoordinator("group-a", 2)
            .withCoordinator("group-b", 3)
            .withCoordinator("txn-a", 1);

    @ParameterizedTest(name = "FindCoordinator v{0}")
    @ValueSource(shorts = {0, 1, 2, 3})
    void singleKeyVersionsAnswerWithTheTopologysCoordinatorAtTheProxyAddress(short version) {
        // Given brokers mode and group-a coordinated by broker 2

        // When a client looks up group-a with a single-key request
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, singleKey("group-a", CoordinatorType.GROUP), version);

        // Then the answer names node 2 at the proxy's address
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(2, answer.nodeId());
        assertEquals(PROXY_HOST, answer.host());
        assertEquals(PROXY_PORT, answer.port());
    }

    @ParameterizedTest(name = "FindCoordinator v{0}")
    @ValueSource(shorts = {4, 5, 6})
    void batchedVersionsAnswerEveryKeyInOrder(short version) {
        // Given brokers mode, group-a at broker 2 and group-b at broker 3

        // When a client looks both up in one batched request
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, batched(CoordinatorType.GROUP, "group-a", "group-b"), version);

        // Then each key gets its own coordinator at the proxy's address
        assertEquals(List.of(at("group-a", 2), at("group-b", 3)), answer.coordinators());
    }

    @Test
    void sniModeNamesTheCoordinatorByItsOwnHostName() {
        // Given sni mode, group-a at broker 2 and group-b at broker 3
        AdvertisedListener sni = AdvertisedListener.sni(
                SniHosts.of("kafka.example.com", "b$(nodeId).kafka.example.com"), PROXY_PORT);

        // When a client looks both up
        FindCoordinatorResponseData answer = ask(sni, batched(CoordinatorType.GROUP, "group-a", "group-b"), (short) 4);

        // Then each coordinator is named as its broker is in Metadata, on the one port
        assertEquals(List.of(
                new Coordinator().setKey("group-a").setNodeId(2).setHost("b2.kafka.example.com").setPort(PROXY_PORT)
                        .setErrorCode(Errors.NONE.code()),
                new Coordinator().setKey("group-b").setNodeId(3).setHost("b3.kafka.example.com").setPort(PROXY_PORT)
                        .setErrorCode(Errors.NONE.code())), answer.coordinators());
    }

    @Test
    void transactionalKeyIsLookedUpAsATransactionCoordinator() {
        // Given a transactional id coordinated by broker 1

        // When a client looks it up
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, batched(CoordinatorType.TRANSACTION, "txn-a"), (short) 4);

        // Then the topology was asked for a transaction coordinator, and its answer is returned
        assertEquals(List.of(new StubTopology.CoordinatorKey(CoordinatorKind.TRANSACTION, "txn-a")), topology.coordinatorQueries());
        assertEquals(List.of(at("txn-a", 1)), answer.coordinators());
    }

    @Test
    void noLiveCoordinatorGivesCoordinatorNotAvailableForThatKeyOnly() {
        // Given the topology knows no coordinator (-1) for group-x

        // When a client looks up group-a and group-x together
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, batched(CoordinatorType.GROUP, "group-a", "group-x"), (short) 4);

        // Then group-a is answered and group-x gets COORDINATOR_NOT_AVAILABLE with node -1
        Coordinator groupA = answer.coordinators().get(0);
        Coordinator groupX = answer.coordinators().get(1);
        assertEquals(at("group-a", 2), groupA);
        assertEquals("group-x", groupX.key());
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), groupX.errorCode());
        assertEquals(-1, groupX.nodeId());
    }

    @Test
    void noLiveCoordinatorGivesCoordinatorNotAvailableInTheSingleKeyShape() {
        // Given the topology knows no coordinator (-1) for group-x

        // When a client looks it up with a v3 request
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, singleKey("group-x", CoordinatorType.GROUP), (short) 3);

        // Then the answer is COORDINATOR_NOT_AVAILABLE with node -1
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answer.errorCode());
        assertEquals(-1, answer.nodeId());
    }

    @Test
    void failedCoordinatorLookupGivesCoordinatorNotAvailable() {
        // Given a topology whose lookup for group-a fails
        topology = new StubTopology(CLUSTER).withFailingCoordinatorLookup("group-a");

        // When a client looks it up
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, batched(CoordinatorType.GROUP, "group-a"), (short) 4);

        // Then the answer is COORDINATOR_NOT_AVAILABLE, which clients retry
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answer.coordinators().get(0).errorCode());
    }

    @Test
    void singleModeAnswersNodeZeroInTheSingleKeyShape() {
        // Given single mode

        // When a client looks up group-a with a v3 request
        FindCoordinatorResponseData answer = ask(AdvertiseMode.SINGLE, singleKey("group-a", CoordinatorType.GROUP), (short) 3);

        // Then node 0 at the proxy's address coordinates it
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(0, answer.nodeId());
        assertEquals(PROXY_HOST, answer.host());
        assertEquals(PROXY_PORT, answer.port());
    }

    @Test
    void singleModeAnswersNodeZeroForEveryBatchedKeyWithoutAskingTheTopology() {
        // Given single mode

        // When a client looks up group-a and group-b with a v4 request
        FindCoordinatorResponseData answer = ask(AdvertiseMode.SINGLE, batched(CoordinatorType.GROUP, "group-a", "group-b"), (short) 4);

        // Then node 0 at the proxy's address coordinates both, and the topology was not asked
        assertEquals(List.of(at("group-a", 0), at("group-b", 0)), answer.coordinators());
        assertEquals(List.of(), topology.coordinatorQueries());
    }

    @Test
    void noBrokersInTheSnapshotGivesCoordinatorNotAvailable() {
        // Given a topology that lists no brokers
        topology = new StubTopology(TopologySnapshot.EMPTY).withCoordinator("group-a", 2);

        // When a client looks up group-a
        FindCoordinatorResponseData answer = ask(AdvertiseMode.BROKERS, singleKey("group-a", CoordinatorType.GROUP), (short) 3);

        // Then the answer is COORDINATOR_NOT_AVAILABLE
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answer.errorCode());
    }

    private FindCoordinatorResponseData ask(AdvertiseMode mode, FindCoordinatorRequestData data, short version) {
        return ask(new AdvertisedListener(PROXY_HOST, PROXY_PORT, mode), data, version);
    }

    private FindCoordinatorResponseData ask(AdvertisedListener advertised, FindCoordinatorRequestData data,
                                            short version) {
        FindCoordinatorResponder responder = new FindCoordinatorResponder(topology, advertised);
        RequestFrame request = KafkaWire.requestFrame(new FindCoordinatorRequest.Builder(data).build(version), 90, "client");
        ByteBuf answer;
        try {
            answer = completed(responder.answer(request));
        } finally {
            request.frame().release();
        }
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(answer, ApiKeys.FIND_COORDINATOR, version);
        assertEquals(90, parsed.correlationId());
        return parsed.as(FindCoordinatorResponse.class).data();
    }

    private static FindCoordinatorRequestData singleKey(String key, CoordinatorType type) {
        return new FindCoordinatorRequestData().setKey(key).setKeyType(type.id());
    }

    private static FindCoordinatorRequestData batched(CoordinatorType type, String... keys) {
        return new FindCoordinatorRequestData().setKeyType(type.id()).setCoordinatorKeys(List.of(keys));
    }

    private static Coordinator at(String key, int nodeId) {
        return new Coordinator().setKey(key).setNodeId(nodeId).setHost(PROXY_HOST).setPort(PROXY_PORT)
                .setErrorCode(Errors.NONE.code());
    }
}
