package org.kafscale.proxy.routing.produce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.routing.Produces;
import org.kafscale.proxy.routing.RoutingHarness;
import org.kafscale.proxy.routing.RoutingHarness.FanOut;

/**
 * A Produce one broker leads wholly goes to it as the client's bytes, its body never decoded, and
 * the broker's answer comes back as it was; anything else takes the decoded path, seen from a
 * client of a real listener (brokers mode unless a test asks for broker ports) with scripted
 * brokers behind it. How refusals and failures on the bytes path are retried is the decoded
 * path's, and ProduceRouteTest checks it through this path.
 */
class ProduceAsBytesTest {
    private static final short ACKS_ALL = -1;
    private static final short ACKS_NONE = 0;
    /** The correlation id's bytes in a request header: after the key and version, before the client id. */
    private static final int CORRELATION_ID_FROM = 4;
    private static final int CORRELATION_ID_TO = 8;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();
    /** Body parses of each client request, counted once it was answered. */
    private final List<Integer> parses = new CopyOnWriteArrayList<>();

    @BeforeEach
    void countParses() {
        proxy.aroundRouter(router -> (context, request) -> {
            Future<Reply> reply = router.handle(context, request);
            reply.addListener(done -> parses.add(request.bodyParses()));
            return reply;
        });
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 1).withPartition("orders", 2, 2);
        storeAtHundredPlusIndex(broker1);
        storeAtHundredPlusIndex(broker2);
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void produceOneBrokerLeadsReachesItAsTheClientsBytesButTheCorrelationIdAndIsNeverDecoded() throws IOException {
        // Given orders-0 and orders-1, both led by broker 1
        ProduceRequestData produce = Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-0", "orders-1"));
        RawKafkaConnection client = proxy.connect();

        // When a client produces to both
        RequestHeader header = client.write(produce, Produces.VERSION);
        ProduceResponse answer = client.read(header);

        // Then broker 1 got the client's bytes, the correlation id apart, and the client broker 1's answer
        ByteBuffer sent = RequestUtils.serialize(header.data(), header.headerVersion(), produce, Produces.VERSION);
        byte[] clientBytes = Arrays.copyOfRange(sent.array(), sent.arrayOffset() + sent.position(),
                sent.arrayOffset() + sent.limit());
        assertArrayEquals(withoutCorrelationId(clientBytes),
                withoutCorrelationId(broker1.awaitRequests(ApiKeys.PRODUCE, 1).get(0).frame()));
        assertEquals(Map.of("orders-0", 100L, "orders-1", 101L), offsets(answer.data()));
        // ... and the proxy never parsed the body
        assertEquals(List.of(0), parses);
        assertEquals(List.of(new FanOut(ApiKeys.PRODUCE, 1)), proxy.fanOuts());
    }

    @Test
    void produceWithAPartitionLedByAnotherBrokerIsDecodedAndSplit() throws IOException {
        // Given orders-0 led by broker 1 and orders-2 by broker 2

        // When a client produces to both
        ProduceResponseData answer = proxy.connect().send(
                Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-0", "orders-2")), Produces.VERSION);

        // Then the body was parsed once, and each broker got its own partition
        assertEquals(List.of(1), parses);
        assertEquals(List.of("orders-0"), partitionsSent(broker1));
        assertEquals(List.of("orders-2"), partitionsSent(broker2));
        assertEquals(Map.of("orders-0", 100L, "orders-2", 102L), offsets(answer));
    }

    @Test
    void onABrokersOwnPortAProduceThatBrokerLeadsGoesAsBytes() throws IOException {
        // Given advertise mode ports, and a client on broker 1's own port
        RawKafkaConnection client = proxy.withBrokerPorts().connectToBrokerPort(1);

        // When it produces to orders-0 and orders-1, which broker 1 leads
        ProduceResponseData answer = client.send(
                Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-0", "orders-1")), Produces.VERSION);

        // Then broker 1 stored both, and the body was never parsed
        assertEquals(Map.of("orders-0", 100L, "orders-1", 101L), offsets(answer));
        assertEquals(List.of(0), parses);
    }

    @Test
    void onABrokersOwnPortAProduceAnotherBrokerLeadsIsDecodedAndGoesToItsLeader() throws IOException {
        // Given advertise mode ports, and a client on broker 1's own port that believes it leads orders-2
        RawKafkaConnection client = proxy.withBrokerPorts().connectToBrokerPort(1);

        // When it produces to orders-2, which broker 2 leads
        ProduceResponseData answer = client.send(
                Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-2")), Produces.VERSION);

        // Then the decoded path sent it to broker 2
        assertEquals(List.of(1), parses);
        assertEquals(List.of("orders-2"), partitionsSent(broker2));
        assertEquals(0, broker1.requests(ApiKeys.PRODUCE));
        assertEquals(Map.of("orders-2", 102L), offsets(answer));
    }

    @Test
    void acksZeroProduceOneBrokerLeadsKeepsItsOwnPath() throws IOException {
        // Given orders-0 led by broker 1 (which never answers acks=0)
        RawKafkaConnection client = proxy.connect();

        // When a client sends an acks=0 Produce to it, then an acks=-1 one
        client.write(Produces.request(topology, ACKS_NONE, Produces.recordPerPartition("orders-0")), Produces.VERSION);
        RequestHeader next = client.write(Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-1")),
                Produces.VERSION);

        // Then the first answer the client reads is the second request's; the acks=0 one was decoded, the other not
        assertEquals(Map.of("orders-1", 101L), offsets(client.<ProduceResponse>read(next).data()));
        assertEquals(2, broker1.awaitRequests(ApiKeys.PRODUCE, 2).size());
        assertEquals(List.of(1, 0), parses);
    }

    @Test
    void answerThatNamesABrokersEndpointIsReencodedWithoutIt() throws IOException {
        // Given broker 1, which stores orders-0 and names its own address in the answer (KIP-951 node endpoints)
        broker1.on(ApiKeys.PRODUCE, request -> {
            ProduceResponseData stored = Produces.answer(request.data(ProduceRequestData.class), p -> Produces.stored(5));
            stored.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(1).setHost("broker-1.internal")
                    .setPort(9092));
            return answer(stored);
        });

        // When a client produces to orders-0
        ProduceResponseData answer = proxy.connect().send(
                Produces.request(topology, ACKS_ALL, Produces.recordPerPartition("orders-0")), Produces.VERSION);

        // Then it sees the stored partition and no broker's address
        assertEquals(Map.of("orders-0", 5L), offsets(answer));
        assertEquals(List.of(), answer.nodeEndpoints().stream().map(ProduceResponseData.NodeEndpoint::host).toList());
    }

    @Test
    void batchWithAProducerIdWhoseBrokerDropsTheConnectionIsAnsweredAndNotResent() throws IOException {
        // Given broker 1, which closes the connection on every Produce
        broker1.on(ApiKeys.PRODUCE, request -> ScriptedBroker.Response.close());

        // When an idempotent producer writes a batch to orders-0
        ProduceResponseData answer = proxy.connect().send(Produces.request(topology, ACKS_ALL,
                Map.of("orders-0", TestRecords.idempotent(4242, "v"))), Produces.VERSION);

        // Then it gets NETWORK_EXCEPTION to retry itself, in order, and broker 1 saw the batch once
        assertEquals(Errors.NETWORK_EXCEPTION.code(), Produces.results(topology, answer).get("orders-0").errorCode());
        assertEquals(1, broker1.requests(ApiKeys.PRODUCE));
        assertEquals(List.of(), proxy.retries());
    }

    private static void storeAtHundredPlusIndex(ScriptedBroker broker) {
        broker.on(ApiKeys.PRODUCE, request -> answer(Produces.answer(request.data(ProduceRequestData.class),
                p -> Produces.stored(100 + p.index()))));
    }

    private List<String> partitionsSent(ScriptedBroker broker) {
        return Produces.partitions(topology, broker.awaitRequests(ApiKeys.PRODUCE, 1).get(0).data(ProduceRequestData.class));
    }

    private Map<String, Long> offsets(ProduceResponseData answer) {
        Map<String, Long> offsets = new HashMap<>();
        Produces.results(topology, answer).forEach((partition, result) -> offsets.put(partition, result.baseOffset()));
        return offsets;
    }

    private static byte[] withoutCorrelationId(byte[] frame) {
        byte[] copy = frame.clone();
        Arrays.fill(copy, CORRELATION_ID_FROM, CORRELATION_ID_TO, (byte) 0);
        return copy;
    }
}
