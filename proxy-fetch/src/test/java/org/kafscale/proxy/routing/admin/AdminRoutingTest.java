package org.kafscale.proxy.routing.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData.TransactionState;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.ConfigResourceTypes;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.routing.RoutingHarness;

/**
 * Admin APIs whose resources or answers are a broker's own, seen from a client of a real listener
 * with scripted brokers behind it: config resources split per broker, listings merged from every
 * broker, transaction markers split per partition leader.
 */
class AdminRoutingTest {
    private static final short DESCRIBE_CONFIGS_VERSION = 4;
    private static final short INCREMENTAL_ALTER_CONFIGS_VERSION = 1;
    private static final short LIST_TRANSACTIONS_VERSION = 1;
    private static final short WRITE_TXN_MARKERS_VERSION = 1;
    private static final byte TOPIC = 2;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final ScriptedBroker broker3 = proxy.broker(3);

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void brokerConfigResourcesGoToTheBrokerTheyNameAndComeBackInRequestOrder() throws IOException {
        // Given brokers that describe each resource as "<name> at broker <id>"
        for (ScriptedBroker broker : List.of(broker1, broker2, broker3)) {
            broker.on(ApiKeys.DESCRIBE_CONFIGS, request -> answer(new DescribeConfigsResponseData().setResults(
                    request.data(DescribeConfigsRequestData.class).resources().stream().map(r -> new DescribeConfigsResult()
                            .setResourceType(r.resourceType()).setResourceName(r.resourceName()).setConfigs(List.of(
                                    new DescribeConfigsResourceResult().setName("where")
                                            .setValue(r.resourceName() + " at broker " + broker.id())))).toList())));
        }

        // When a client describes broker 2, topic orders, broker 1 and broker 2's loggers
        DescribeConfigsResponseData answer = proxy.connect().send(new DescribeConfigsRequestData().setResources(List.of(
                resource(ConfigResourceTypes.BROKER, "2"), resource(TOPIC, "orders"),
                resource(ConfigResourceTypes.BROKER, "1"), resource(ConfigResourceTypes.BROKER_LOGGER, "2"))),
                DESCRIBE_CONFIGS_VERSION);

        // Then each broker resource was answered by its broker (the topic riding along with broker 2's part),
        // broker 3 was not asked, and the results come back in request order
        assertEquals(List.of("2 at broker 2", "orders at broker 2", "1 at broker 1", "2 at broker 2"),
                answer.results().stream().map(r -> r.configs().get(0).value()).toList());
        assertEquals(List.of("1"), broker1.awaitRequests(ApiKeys.DESCRIBE_CONFIGS, 1).get(0)
                .data(DescribeConfigsRequestData.class).resources().stream().map(DescribeConfigsResource::resourceName).toList());
        assertEquals(0, broker3.requests(ApiKeys.DESCRIBE_CONFIGS));
    }

    @Test
    void aBrokerIdBehindNoBrokerIsRefusedAsABrokerRefusesAnotherId() throws IOException {
        // Given three brokers, ids 1 to 3

        // When a client describes broker 7
        DescribeConfigsResponseData answer = proxy.connect().send(new DescribeConfigsRequestData().setResources(List.of(
                resource(ConfigResourceTypes.BROKER, "7"))), DESCRIBE_CONFIGS_VERSION);

        // Then it gets INVALID_REQUEST for that resource, and no broker was asked
        assertEquals(Errors.INVALID_REQUEST.code(), answer.results().get(0).errorCode());
        assertEquals("7", answer.results().get(0).resourceName());
        assertEquals(0, broker1.requests(ApiKeys.DESCRIBE_CONFIGS) + broker2.requests(ApiKeys.DESCRIBE_CONFIGS)
                + broker3.requests(ApiKeys.DESCRIBE_CONFIGS));
    }

    @Test
    void aBrokerThatFailsFailsOnlyTheResourcesSentToIt() throws IOException {
        // Given broker 2 closing every connection it is asked on, and broker 1 answering
        broker2.on(ApiKeys.DESCRIBE_CONFIGS, request -> ScriptedBroker.Response.close());
        broker1.on(ApiKeys.DESCRIBE_CONFIGS, request -> answer(new DescribeConfigsResponseData().setResults(List.of(
                new DescribeConfigsResult().setResourceType(ConfigResourceTypes.BROKER).setResourceName("1")))));

        // When a client describes broker 2 and broker 1
        DescribeConfigsResponseData answer = proxy.connect().send(new DescribeConfigsRequestData().setResources(List.of(
                resource(ConfigResourceTypes.BROKER, "2"), resource(ConfigResourceTypes.BROKER, "1"))),
                DESCRIBE_CONFIGS_VERSION);

        // Then broker 2's resource carries the failure and broker 1's its answer
        assertEquals(List.of("2 REQUEST_TIMED_OUT", "1 NONE"), answer.results().stream()
                .map(r -> r.resourceName() + " " + Errors.forCode(r.errorCode()).name()).toList());
    }

    @Test
    void brokerAddressesInConfigValuesAreHidden() throws IOException {
        // Given broker 1 whose configs name its listeners and, in another value, its own address
        String ownAddress = broker1.endpoint().host() + ":" + broker1.endpoint().port();
        broker1.on(ApiKeys.DESCRIBE_CONFIGS, request -> answer(new DescribeConfigsResponseData().setResults(List.of(
                new DescribeConfigsResult().setResourceType(ConfigResourceTypes.BROKER).setResourceName("1").setConfigs(List.of(
                        new DescribeConfigsResourceResult().setName("advertised.listeners").setValue("PLAINTEXT://broker-1:9092"),
                        new DescribeConfigsResourceResult().setName("some.bootstrap").setValue("x," + ownAddress),
                        new DescribeConfigsResourceResult().setName("num.io.threads").setValue("8")))))));

        // When a client describes broker 1
        DescribeConfigsResponseData answer = proxy.connect().send(new DescribeConfigsRequestData().setResources(List.of(
                resource(ConfigResourceTypes.BROKER, "1"))), DESCRIBE_CONFIGS_VERSION);

        // Then the address-bearing values are blank and marked sensitive, the others as the broker gave them
        List<DescribeConfigsResourceResult> configs = answer.results().get(0).configs();
        assertNull(configs.get(0).value());
        assertTrue(configs.get(0).isSensitive());
        assertNull(configs.get(1).value());
        assertEquals("8", configs.get(2).value());
    }

    @Test
    void incrementalAlterOfTwoBrokersIsSplitAndMergedInRequestOrder() throws IOException {
        // Given brokers that answer each resource with their id as its error message
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.INCREMENTAL_ALTER_CONFIGS, request -> answer(new IncrementalAlterConfigsResponseData()
                    .setResponses(request.data(IncrementalAlterConfigsRequestData.class).resources().stream()
                            .map(r -> new AlterConfigsResourceResponse().setResourceType(r.resourceType())
                                    .setResourceName(r.resourceName()).setErrorMessage("broker " + broker.id())).toList())));
        }

        // When a client alters broker 2's loggers and broker 1's config
        AlterConfigsResourceCollection resources = new AlterConfigsResourceCollection();
        resources.add(new AlterConfigsResource().setResourceType(ConfigResourceTypes.BROKER_LOGGER).setResourceName("2"));
        resources.add(new AlterConfigsResource().setResourceType(ConfigResourceTypes.BROKER).setResourceName("1"));
        IncrementalAlterConfigsResponseData answer = proxy.connect().send(new IncrementalAlterConfigsRequestData()
                .setResources(resources), INCREMENTAL_ALTER_CONFIGS_VERSION);

        // Then each broker altered its own, and the answer follows the request's order
        assertEquals(List.of("2 broker 2", "1 broker 1"), answer.responses().stream()
                .map(r -> r.resourceName() + " " + r.errorMessage()).toList());
    }

    @Test
    void listTransactionsAsksEveryBrokerAndListsEachTransactionOnce() throws IOException {
        // Given each broker coordinating its own transaction, and brokers 1 and 2 both listing txn-shared
        broker1.on(ApiKeys.LIST_TRANSACTIONS, request -> answer(transactions("txn-1", "txn-shared")));
        broker2.on(ApiKeys.LIST_TRANSACTIONS, request -> answer(transactions("txn-2", "txn-shared")));
        broker3.on(ApiKeys.LIST_TRANSACTIONS, request -> answer(transactions("txn-3")));

        // When a client lists transactions
        ListTransactionsResponseData answer = proxy.connect().send(new ListTransactionsRequestData(), LIST_TRANSACTIONS_VERSION);

        // Then every broker was asked, and each transaction is listed once
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(List.of("txn-1", "txn-2", "txn-3", "txn-shared"), answer.transactionStates().stream()
                .map(TransactionState::transactionalId).sorted().toList());
    }

    @Test
    void aBrokerThatCannotListMakesTheListingAnError() throws IOException {
        // Given broker 3 closing the connection, the others listing their transactions
        broker1.on(ApiKeys.LIST_TRANSACTIONS, request -> answer(transactions("txn-1")));
        broker2.on(ApiKeys.LIST_TRANSACTIONS, request -> answer(transactions("txn-2")));
        broker3.on(ApiKeys.LIST_TRANSACTIONS, request -> ScriptedBroker.Response.close());

        // When a client lists transactions
        ListTransactionsResponseData answer = proxy.connect().send(new ListTransactionsRequestData(), LIST_TRANSACTIONS_VERSION);

        // Then the answer says the listing is incomplete (a retriable error), not a short list
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answer.errorCode());
    }

    @Test
    void transactionMarkersAreSplitPerPartitionLeaderAndAnsweredForTheProducer() throws IOException {
        // Given orders-0 led by broker 1 and orders-1 by broker 2, each broker writing its markers
        proxy.topology().withPartition("orders", 0, 1).withPartition("orders", 1, 2);
        for (ScriptedBroker broker : List.of(broker1, broker2)) {
            broker.on(ApiKeys.WRITE_TXN_MARKERS, request -> {
                WritableTxnMarker marker = request.data(WriteTxnMarkersRequestData.class).markers().get(0);
                return answer(new WriteTxnMarkersResponseData().setMarkers(List.of(new WritableTxnMarkerResult()
                        .setProducerId(marker.producerId()).setTopics(marker.topics().stream().map(t ->
                                new WritableTxnMarkerTopicResult().setName(t.name()).setPartitions(t.partitionIndexes().stream()
                                        .map(p -> new WritableTxnMarkerPartitionResult().setPartitionIndex(p)).toList())).toList()))));
            });
        }

        // When a client aborts producer 42's transaction on both partitions
        WriteTxnMarkersResponseData answer = proxy.connect().send(new WriteTxnMarkersRequestData().setMarkers(List.of(
                new WritableTxnMarker().setProducerId(42).setProducerEpoch((short) 3).setTransactionResult(false)
                        .setCoordinatorEpoch(-1).setTopics(List.of(new WritableTxnMarkerTopic().setName("orders")
                                .setPartitionIndexes(List.of(0, 1)))))), WRITE_TXN_MARKERS_VERSION);

        // Then each leader wrote the marker for its own partition, and the answer names producer 42 and both partitions
        assertEquals(List.of(0), broker1.awaitRequests(ApiKeys.WRITE_TXN_MARKERS, 1).get(0)
                .data(WriteTxnMarkersRequestData.class).markers().get(0).topics().get(0).partitionIndexes());
        assertEquals(List.of(1), broker2.awaitRequests(ApiKeys.WRITE_TXN_MARKERS, 1).get(0)
                .data(WriteTxnMarkersRequestData.class).markers().get(0).topics().get(0).partitionIndexes());
        assertEquals(1, answer.markers().size());
        assertEquals(42, answer.markers().get(0).producerId());
        assertEquals(List.of("orders-0 NONE", "orders-1 NONE"), answer.markers().get(0).topics().stream()
                .flatMap(t -> t.partitions().stream().map(p -> t.name() + "-" + p.partitionIndex() + " "
                        + Errors.forCode(p.errorCode()).name())).toList());
    }

    private static DescribeConfigsResource resource(byte type, String name) {
        return new DescribeConfigsResource().setResourceType(type).setResourceName(name);
    }

    private static ListTransactionsResponseData transactions(String... ids) {
        return new ListTransactionsResponseData().setTransactionStates(List.of(ids).stream()
                .map(id -> new TransactionState().setTransactionalId(id).setProducerId(id.hashCode())
                        .setTransactionState("Ongoing")).toList());
    }
}
