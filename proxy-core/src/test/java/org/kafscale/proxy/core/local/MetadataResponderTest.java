package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.PartitionLayout;
import org.kafscale.proxy.core.topology.TopicLayout;
import org.kafscale.proxy.core.topology.TopologySnapshot;

class MetadataResponderTest {

    private static final String PROXY_HOST = "proxy.example";
    private static final int PROXY_PORT = 19092;
    private static final short LATEST = 12;
    private static final Uuid ORDERS_ID = Uuid.fromString("b5Wzo1ZbQ2m3BSd4rtQsQw");
    private static final Uuid PAYMENTS_ID = Uuid.fromString("Vm3fPNd7TkKh7q2jGeVZ1A");

    /**
     * Brokers 1, 2 and 3 (controller 2). "orders": p0 led by 1, p1 led by 2, p2 without owner.
     * "payments": p0 led by 3. "stale": p0 owned by broker 9, which the snapshot does not list.
     */
    private static final TopologySnapshot CLUSTER = TopologySnapshot.of("cluster-a", 2,
            List.of(new BrokerEndpoint(3, "b3.internal", 9092, null),
                    new BrokerEndpoint(1, "b1.internal", 9092, "rack-1"),
                    new BrokerEndpoint(2, "b2.internal", 9093, "rack-2")),
            List.of(TopicLayout.of("orders", ORDERS_ID, false, Map.of(
                            0, new PartitionLayout(0, 1, 7, List.of(1, 2), List.of(1, 2), List.of()),
                            1, new PartitionLayout(1, 2, 3, List.of(2, 3), List.of(2), List.of(3)),
                            2, new PartitionLayout(2, PartitionLayout.NO_OWNER, -1, List.of(3), List.of(), List.of()))),
                    TopicLayout.of("payments", PAYMENTS_ID, false, Map.of(
                            0, new PartitionLayout(0, 3, 1, List.of(), List.of(), List.of()))),
                    TopicLayout.of("stale", Uuid.ZERO_UUID, false, Map.of(
                            0, new PartitionLayout(0, 9, 1, List.of(9), List.of(9), List.of())))));

    private StubTopology topology = new StubTopology(CLUSTER);

    @Test
    void brokersModeAdvertisesEveryBrokerIdAtTheProxyAddress() {
        // Given brokers mode

        // When a client asks for all topics
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, allTopics(), LATEST);

        // Then every real broker id is listed, each at the advertised host and port, racks kept
        assertEquals(List.of(
                        broker(1, "rack-1"),
                        broker(2, "rack-2"),
                        broker(3, null)),
                answer.brokers().stream().map(MetadataResponseBroker::duplicate).toList());
        assertEquals(2, answer.controllerId());
        assertEquals("cluster-a", answer.clusterId());
    }

    @Test
    void portsModeAdvertisesEachBrokerAtItsOwnPortAndAnIdPastTheRangeAtTheBootstrapPort() {
        // Given ports mode with ports for ids 0 to 2 (9100 + id); broker 3 is past the range
        AdvertisedListener ports = new AdvertisedListener(PROXY_HOST, PROXY_PORT, AdvertiseMode.PORTS,
                new BrokerPorts(9100, 3));
        RequestFrame request = KafkaWire.requestFrame(new MetadataRequest.Builder(topics("orders")).build(LATEST),
                61, "client");

        // When
        MetadataResponseData answer = answer(ports, request, LATEST);

        // Then: no two ids share an address; broker 3 is served through the bootstrap port
        assertEquals(List.of(
                        new MetadataResponseBroker().setNodeId(1).setHost(PROXY_HOST).setPort(9101).setRack("rack-1"),
                        new MetadataResponseBroker().setNodeId(2).setHost(PROXY_HOST).setPort(9102).setRack("rack-2"),
                        broker(3, null)),
                answer.brokers().stream().map(MetadataResponseBroker::duplicate).toList());
        // and the real leaders, replicas and ISR, as in brokers mode
        MetadataResponsePartition p1 = partition(answer.topics().find("orders"), 1);
        assertEquals(2, p1.leaderId());
        assertEquals(List.of(2, 3), p1.replicaNodes());
        assertEquals(List.of(2), p1.isrNodes());
    }

    @Test
    void sniModeAdvertisesEachBrokerUnderItsOwnNameOnTheOnePort() {
        // Given sni mode: brokers as broker-<id>.kafka.example.com, all on the listener's port
        AdvertisedListener sni = AdvertisedListener.sni(
                SniHosts.of("bootstrap.kafka.example.com", "broker-$(nodeId).kafka.example.com"), PROXY_PORT);
        RequestFrame request = KafkaWire.requestFrame(new MetadataRequest.Builder(topics("orders")).build(LATEST),
                61, "client");

        // When
        MetadataResponseData answer = answer(sni, request, LATEST);

        // Then every real id has a name of its own (so clients that key brokers by address see
        // them all) and the one port; the real leaders as in brokers mode
        assertEquals(List.of(
                        new MetadataResponseBroker().setNodeId(1).setHost("broker-1.kafka.example.com")
                                .setPort(PROXY_PORT).setRack("rack-1"),
                        new MetadataResponseBroker().setNodeId(2).setHost("broker-2.kafka.example.com")
                                .setPort(PROXY_PORT).setRack("rack-2"),
                        new MetadataResponseBroker().setNodeId(3).setHost("broker-3.kafka.example.com")
                                .setPort(PROXY_PORT)),
                answer.brokers().stream().map(MetadataResponseBroker::duplicate).toList());
        assertEquals(2, partition(answer.topics().find("orders"), 1).leaderId());
        assertEquals(2, answer.controllerId());
    }

    @Test
    void brokersModeReportsTheRealLeaderReplicasAndIsrOfEachPartition() {
        // Given brokers mode

        // When a client asks for "orders"
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, topics("orders"), LATEST);

        // Then each owned partition names its real leader, epoch, replicas and ISR
        MetadataResponseTopic orders = answer.topics().find("orders");
        assertEquals(Errors.NONE.code(), orders.errorCode());
        assertEquals(ORDERS_ID, orders.topicId());
        MetadataResponsePartition p0 = partition(orders, 0);
        assertEquals(1, p0.leaderId());
        assertEquals(7, p0.leaderEpoch());
        assertEquals(List.of(1, 2), p0.replicaNodes());
        assertEquals(List.of(1, 2), p0.isrNodes());
        MetadataResponsePartition p1 = partition(orders, 1);
        assertEquals(2, p1.leaderId());
        assertEquals(List.of(3), p1.offlineReplicas());
    }

    @Test
    void brokersModeFillsReplicasAndIsrWithTheOwnerWhenTheSourceGivesNone() {
        // Given a partition whose source names an owner but no replicas or ISR ("payments" p0, owner 3)

        // When a client asks for it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, topics("payments"), LATEST);

        // Then the owner is its one replica and in-sync replica
        MetadataResponsePartition p0 = partition(answer.topics().find("payments"), 0);
        assertEquals(3, p0.leaderId());
        assertEquals(List.of(3), p0.replicaNodes());
        assertEquals(List.of(3), p0.isrNodes());
    }

    @Test
    void singleModeAdvertisesOnlyNodeZeroAsBrokerAndController() {
        // Given single mode

        // When a client asks for all topics
        MetadataResponseData answer = ask(AdvertiseMode.SINGLE, allTopics(), LATEST);

        // Then node 0 at the proxy address is the only broker, and the controller
        assertEquals(List.of(new MetadataResponseBroker().setNodeId(0).setHost(PROXY_HOST).setPort(PROXY_PORT)),
                answer.brokers().stream().map(MetadataResponseBroker::duplicate).toList());
        assertEquals(0, answer.controllerId());
    }

    @Test
    void singleModeMakesNodeZeroLeadEveryOwnedPartition() {
        // Given single mode, and partitions owned by brokers 1, 2 and 3

        // When a client asks for all topics
        MetadataResponseData answer = ask(AdvertiseMode.SINGLE, allTopics(), LATEST);

        // Then each of them is led by node 0, its only replica and in-sync replica
        List<MetadataResponsePartition> owned = List.of(
                partition(answer.topics().find("orders"), 0),
                partition(answer.topics().find("orders"), 1),
                partition(answer.topics().find("payments"), 0));
        for (MetadataResponsePartition p : owned) {
            assertEquals(Errors.NONE.code(), p.errorCode());
            assertEquals(0, p.leaderId());
            assertEquals(List.of(0), p.replicaNodes());
            assertEquals(List.of(0), p.isrNodes());
        }
    }

    @ParameterizedTest(name = "Metadata v{0}")
    @ValueSource(shorts = {1, 4, 9, 12, 13})
    void nullTopicListReturnsEveryTopic(short version) {
        // Given a request with a null topic list

        // When the proxy answers it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, allTopics(), version);

        // Then every topic of the snapshot is described
        assertEquals(List.of("orders", "payments", "stale"), topicNames(answer));
    }

    @ParameterizedTest(name = "Metadata v{0}")
    @ValueSource(shorts = {1, 4, 9, 12, 13})
    void emptyTopicListFromVersionOneReturnsNoTopics(short version) {
        // Given a request with an empty topic list (spec pitfall P13)

        // When the proxy answers it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, new MetadataRequestData().setTopics(List.of()), version);

        // Then no topic is described, but the brokers are
        assertEquals(List.of(), topicNames(answer));
        assertEquals(3, answer.brokers().size());
    }

    @Test
    void emptyTopicListAtVersionZeroReturnsEveryTopic() {
        // Given a v0 request with an empty topic list (v0's way to ask for all topics)

        // When the proxy answers it (kafka-clients' builder refuses v0, so the request is serialized directly)
        RequestFrame request = KafkaWire.requestFrame(Unpooled.wrappedBuffer(RequestUtils.serialize(
                new RequestHeader(ApiKeys.METADATA, (short) 0, "client", 61).data(), ApiKeys.METADATA.requestHeaderVersion((short) 0),
                new MetadataRequestData().setTopics(List.of()), (short) 0)));
        MetadataResponseData answer = answer(AdvertiseMode.BROKERS, request, (short) 0);

        // Then every topic is described
        assertEquals(List.of("orders", "payments", "stale"), topicNames(answer));
    }

    @Test
    void unknownTopicNameGetsUnknownTopicOrPartition() {
        // Given a name the cluster does not have, and a lookup that does not find it

        // When a client asks for it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, topics("nope"), LATEST);

        // Then that topic carries UNKNOWN_TOPIC_OR_PARTITION and no partitions
        MetadataResponseTopic nope = answer.topics().find("nope");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), nope.errorCode());
        assertEquals(List.of(), nope.partitions());
    }

    @Test
    void unknownTopicIdGetsUnknownTopicId() {
        // Given a topic id the cluster does not have
        Uuid unknown = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestTopic().setName(null).setTopicId(unknown)));

        // When a client asks for it by id
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, request, LATEST);

        // Then the answer names the id with UNKNOWN_TOPIC_ID
        assertEquals(1, answer.topics().size());
        MetadataResponseTopic topic = answer.topics().iterator().next();
        assertEquals(unknown, topic.topicId());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), topic.errorCode());
    }

    /**
     * BUG (reported, left failing on purpose): Metadata v10 and v11 requests may name a topic by id
     * with a null name (the request's name is nullable from v10), but the answer's name is only
     * nullable from v12. For an unknown id, MetadataResponder.selectTopics answers
     * {@code setName(null)} with UNKNOWN_TOPIC_ID, and encoding at v10/v11 throws
     * NullPointerException, so the answer stage fails and the dispatcher closes the connection
     * instead of answering. Kafka brokers answer (INVALID_REQUEST, name "").
     */
    @ParameterizedTest(name = "Metadata v{0}")
    @ValueSource(shorts = {10, 11})
    void unknownTopicIdBeforeVersion12IsAnsweredWithAnEmptyName(short version) {
        // Given a v10/v11 request naming an unknown topic by id only (serialized directly: kafka-clients'
        // builder only sends ids from v12 on)
        Uuid unknown = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
        MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestTopic().setName(null).setTopicId(unknown)));
        RequestFrame request = KafkaWire.requestFrame(Unpooled.wrappedBuffer(RequestUtils.serialize(
                new RequestHeader(ApiKeys.METADATA, version, "client", 61).data(),
                ApiKeys.METADATA.requestHeaderVersion(version), data, version)));

        // When the proxy answers it
        MetadataResponseData answer = answer(AdvertiseMode.BROKERS, request, version);

        // Then the client gets an answer whose one topic carries an error
        assertEquals(1, answer.topics().size());
        short error = answer.topics().iterator().next().errorCode();
        assertTrue(error == Errors.UNKNOWN_TOPIC_ID.code() || error == Errors.INVALID_REQUEST.code(),
                "error code " + error);
    }

    @Test
    void knownTopicIdIsDescribedUnderItsName() {
        // Given the id of "payments"
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestTopic().setName(null).setTopicId(PAYMENTS_ID)));

        // When a client asks for it by id
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, request, LATEST);

        // Then the topic is described with its name
        MetadataResponseTopic topic = answer.topics().iterator().next();
        assertEquals("payments", topic.name());
        assertEquals(Errors.NONE.code(), topic.errorCode());
        assertEquals(1, topic.partitions().size());
    }

    @Test
    void partitionWithoutOwnerGetsLeaderNotAvailableAndNoLeader() {
        // Given "orders" p2, which has no owner

        // When a client asks for "orders"
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, topics("orders"), LATEST);

        // Then that partition says LEADER_NOT_AVAILABLE with leader -1
        MetadataResponsePartition p2 = partition(answer.topics().find("orders"), 2);
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), p2.errorCode());
        assertEquals(-1, p2.leaderId());
    }

    @Test
    void partitionOwnedByABrokerMissingFromTheSnapshotGetsLeaderNotAvailable() {
        // Given "stale" p0, owned by broker 9 which the snapshot does not list

        // When a client asks for "stale"
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, topics("stale"), LATEST);

        // Then the partition says LEADER_NOT_AVAILABLE with leader -1
        MetadataResponsePartition p0 = partition(answer.topics().find("stale"), 0);
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), p0.errorCode());
        assertEquals(-1, p0.leaderId());
    }

    @Test
    void singleModePartitionWithoutOwnerGetsLeaderNotAvailable() {
        // Given single mode and "orders" p2, which has no owner

        // When a client asks for "orders"
        MetadataResponseData answer = ask(AdvertiseMode.SINGLE, topics("orders"), LATEST);

        // Then that partition says LEADER_NOT_AVAILABLE with leader -1
        MetadataResponsePartition p2 = partition(answer.topics().find("orders"), 2);
        assertEquals(Errors.LEADER_NOT_AVAILABLE.code(), p2.errorCode());
        assertEquals(-1, p2.leaderId());
    }

    @ParameterizedTest(name = "allowAutoTopicCreation={0}")
    @ValueSource(booleans = {true, false})
    void namesMissingFromTheSnapshotAreLookedUpWithTheClientsAutoCreateFlag(boolean allowAutoCreate) {
        // Given a request naming one known and two unknown topics
        MetadataRequestData request = topics("orders", "new-a", "new-b").setAllowAutoTopicCreation(allowAutoCreate);

        // When the proxy answers it
        ask(AdvertiseMode.BROKERS, request, LATEST);

        // Then the topology is asked once, for the unknown names only, with the client's flag
        assertEquals(List.of(new StubTopology.Lookup(List.of("new-a", "new-b"), allowAutoCreate)), topology.lookups());
    }

    @Test
    void noLookupIsMadeWhenEveryNameIsKnown() {
        // Given a request naming only known topics

        // When the proxy answers it
        ask(AdvertiseMode.BROKERS, topics("orders", "payments"), LATEST);

        // Then the topology is not asked to look anything up
        assertEquals(List.of(), topology.lookups());
    }

    @Test
    void topicFoundByTheLookupIsDescribed() {
        // Given a lookup that finds (or creates) "new-a", led by broker 1
        TopologySnapshot withNewTopic = TopologySnapshot.of("cluster-a", 2, CLUSTER.brokers().values(),
                List.of(TopicLayout.of("new-a", Uuid.fromString("xvQ0LhzdRxKnmQ1KLA6i9g"), false,
                        Map.of(0, new PartitionLayout(0, 1, 0, List.of(1), List.of(1), List.of())))));
        topology = new StubTopology(CLUSTER).answeringLookupsWith(withNewTopic);

        // When a client asks for it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, topics("new-a"), LATEST);

        // Then it is described from the looked-up snapshot
        MetadataResponseTopic topic = answer.topics().find("new-a");
        assertEquals(Errors.NONE.code(), topic.errorCode());
        assertEquals(1, partition(topic, 0).leaderId());
    }

    @Test
    void versionsBeforeAutoCreateFlagLookUpWithAutoCreateAllowed() {
        // Given a v3 request (no allowAutoTopicCreation field: Kafka treats it as true) naming an unknown topic

        // When the proxy answers it
        ask(AdvertiseMode.BROKERS, topics("new-a"), (short) 3);

        // Then the lookup allows auto-creation
        assertEquals(List.of(new StubTopology.Lookup(List.of("new-a"), true)), topology.lookups());
    }

    @Test
    void topicIdWithTheDefaultEmptyNameIsLookedUpByIdAsKafkaDoes() {
        // Given the request the Admin's describeTopics(TopicCollection.ofTopicIds) sends: the id, and the name at ""
        MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false).setTopics(List.of(
                new MetadataRequestTopic().setName("").setTopicId(PAYMENTS_ID)));

        // When the proxy answers it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, request, LATEST);

        // Then the topic is found by its id and named, and the empty name is not looked up
        MetadataResponseTopic topic = answer.topics().iterator().next();
        assertEquals(Errors.NONE.code(), topic.errorCode());
        assertEquals("payments", topic.name());
        assertEquals(PAYMENTS_ID, topic.topicId());
        assertEquals(List.of(), topology.lookups());
    }

    @Test
    void unknownTopicIdWithTheDefaultEmptyNameGetsUnknownTopicId() {
        // Given an unknown id with the name at ""
        Uuid unknown = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestTopic().setName("").setTopicId(unknown)));

        // When the proxy answers it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, request, LATEST);

        // Then UNKNOWN_TOPIC_ID for that id, as from a broker
        MetadataResponseTopic topic = answer.topics().iterator().next();
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), topic.errorCode());
        assertEquals(unknown, topic.topicId());
    }

    @ParameterizedTest(name = "topic name \"{0}\"")
    @ValueSource(strings = {"has space", "..", "bad/slash", ""})
    void invalidTopicNameGetsInvalidTopicExceptionAndIsNeverCreated(String name) {
        // Given a request naming an invalid topic, auto-creation allowed
        MetadataRequestData request = topics(name).setAllowAutoTopicCreation(true);

        // When the proxy answers it
        MetadataResponseData answer = ask(AdvertiseMode.BROKERS, request, LATEST);

        // Then INVALID_TOPIC_EXCEPTION, as a broker answers, and the source is not asked to create it
        MetadataResponseTopic topic = answer.topics().iterator().next();
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), topic.errorCode());
        assertEquals(List.of(), topology.lookups());
    }

    private MetadataResponseData ask(AdvertiseMode mode, MetadataRequestData data, short version) {
        RequestFrame request = KafkaWire.requestFrame(new MetadataRequest.Builder(data).build(version), 61, "client");
        return answer(mode, request, version);
    }

    /** Has the responder answer {@code request} (correlation id 61), releases it, and parses the answer. */
    private MetadataResponseData answer(AdvertiseMode mode, RequestFrame request, short version) {
        return answer(new AdvertisedListener(PROXY_HOST, PROXY_PORT, mode), request, version);
    }

    private MetadataResponseData answer(AdvertisedListener advertised, RequestFrame request, short version) {
        MetadataResponder responder = new MetadataResponder(topology, advertised);
        ByteBuf answer;
        try {
            answer = completed(responder.answer(request));
        } finally {
            request.frame().release();
        }
        KafkaWire.Response parsed = KafkaWire.parseResponseAndRelease(answer, ApiKeys.METADATA, version);
        assertEquals(61, parsed.correlationId());
        return parsed.as(MetadataResponse.class).data();
    }

    static <T> T completed(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        assertTrue(future.isDone(), "the answer should be ready: the stub topology completes at once");
        return future.join();
    }

    private static MetadataRequestData allTopics() {
        return new MetadataRequestData().setTopics(null);
    }

    private static MetadataRequestData topics(String... names) {
        return new MetadataRequestData().setTopics(
                Arrays.stream(names).map(n -> new MetadataRequestTopic().setName(n)).collect(Collectors.toList()));
    }

    private static MetadataResponseBroker broker(int id, String rack) {
        return new MetadataResponseBroker().setNodeId(id).setHost(PROXY_HOST).setPort(PROXY_PORT).setRack(rack);
    }

    private static List<String> topicNames(MetadataResponseData answer) {
        return answer.topics().stream().map(MetadataResponseTopic::name).toList();
    }

    private static MetadataResponsePartition partition(MetadataResponseTopic topic, int index) {
        return topic.partitions().stream().filter(p -> p.partitionIndex() == index).findFirst()
                .orElseThrow(() -> new AssertionError(topic.name() + " has no partition " + index));
    }
}
