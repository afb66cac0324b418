package org.kafscale.proxy.routing.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.routing.ListOffsets;
import org.kafscale.proxy.routing.Produces;
import org.kafscale.proxy.routing.RoutingHarness;
import org.kafscale.proxy.routing.RoutingHarness.FanOut;

/**
 * The decisions the partition engine makes for every partition API, seen from a client of a real
 * listener with scripted brokers behind it: pass-through or split, and a broker that refused a
 * partition.
 */
class PartitionExchangeTest {
    private static final short ACKS_ALL = -1;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void oneOwnerGetsTheClientsRequestAsSentAndTheClientGetsTheBrokersAnswerUnchanged() throws IOException {
        // Given orders-0 and orders-1 both on broker 1, which answers in an order a merge would not produce
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 1);
        broker1.on(ApiKeys.PRODUCE, request -> answer(unmergedAnswer(request.data(ProduceRequestData.class))));
        ProduceRequestData produce = Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-0", "orders-1"));

        // When a client produces to both
        ProduceResponseData answer = proxy.connect().send(produce, Produces.VERSION);

        // Then broker 1 got the request with both partitions as the client sent it, and the client got broker 1's answer as it was
        assertEquals(produce, broker1.awaitRequests(ApiKeys.PRODUCE, 1).get(0).data(ProduceRequestData.class));
        assertEquals(unmergedAnswer(produce), answer);
        assertEquals(List.of(new FanOut(ApiKeys.PRODUCE, 1)), proxy.fanOuts());
    }

    @Test
    void partitionsOfTwoOwnersAreSplitByOwnerAndAnsweredInRequestOrder() throws IOException {
        // Given orders-0 and orders-2 on broker 1, orders-1 on broker 2, each broker listing its results in reverse order
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 2).withPartition("orders", 2, 1);
        broker1.on(ApiKeys.PRODUCE, request -> answer(reversed(storedAtHundredPlusIndex(request.data(ProduceRequestData.class)))));
        broker2.on(ApiKeys.PRODUCE, request -> answer(reversed(storedAtHundredPlusIndex(request.data(ProduceRequestData.class)))));

        // When a client produces to orders-0, orders-1 and orders-2
        ProduceResponseData answer = proxy.connect().send(
                Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-0", "orders-1", "orders-2")),
                Produces.VERSION);

        // Then each broker got only its partitions, and the client's answer lists all three in request order
        assertEquals(List.of("orders-0", "orders-2"), Produces.partitions(topology, onlyProduce(broker1)));
        assertEquals(List.of("orders-1"), Produces.partitions(topology, onlyProduce(broker2)));
        Map<String, Long> offsets = new LinkedHashMap<>();
        Produces.results(topology, answer).forEach((partition, result) -> offsets.put(partition, result.baseOffset()));
        assertEquals(List.of("orders-0", "orders-1", "orders-2"), new ArrayList<>(offsets.keySet()));
        assertEquals(List.of(100L, 101L, 102L), new ArrayList<>(offsets.values()));
        assertEquals(List.of(new FanOut(ApiKeys.PRODUCE, 2)), proxy.fanOuts());
    }

    @Test
    void brokerThatRefusedAPartitionIsNotAskedForItAgainInTheSameRequest() throws IOException {
        // Given events-0 on broker 1, which refuses it, and a topology that still names broker 1 after the refusal
        topology.withPartition("events", 0, 1);
        broker1.on(ApiKeys.LIST_OFFSETS, request -> answer(request.errorAnswer(Errors.NOT_LEADER_OR_FOLLOWER)));

        // When a client asks for the partition's latest offset
        ListOffsetsResponseData answer = proxy.connect().send(ListOffsets.latest("events", 0),
                ListOffsets.VERSION);

        // Then broker 1 was asked once, its route was dropped, and the client gets the refusal with Kafka's defaults
        assertEquals(1, broker1.requests(ApiKeys.LIST_OFFSETS));
        assertEquals(List.of(new StubTopology.PartitionKey("events", 0)), topology.invalidatedPartitions());
        ListOffsetsPartitionResponse partition = ListOffsets.only(answer);
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), partition.errorCode());
        assertEquals(-1, partition.offset());
    }

    /**
     * Every partition stored, listed in reverse: the proxy's own merge lists them in request order.
     * (No node endpoints: an answer naming a broker's address is re-encoded, ProduceAsBytesTest.)
     */
    private static ProduceResponseData unmergedAnswer(ProduceRequestData request) {
        return reversed(Produces.answer(request, p -> Produces.stored(7)));
    }

    private static ProduceResponseData storedAtHundredPlusIndex(ProduceRequestData request) {
        return Produces.answer(request, p -> Produces.stored(100 + p.index()));
    }

    private static ProduceResponseData reversed(ProduceResponseData answer) {
        answer.responses().forEach(t -> Collections.reverse(t.partitionResponses()));
        return answer;
    }

    private static ProduceRequestData onlyProduce(ScriptedBroker broker) {
        List<ScriptedBroker.Request> received = broker.received(ApiKeys.PRODUCE);
        assertEquals(1, received.size(), broker + " Produce requests");
        return received.get(0).data(ProduceRequestData.class);
    }
}
