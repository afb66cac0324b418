package org.kafscale.proxy.routing.produce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.hooks.RoutingObserver.RetryCause;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.core.topology.PartitionRef;
import org.kafscale.proxy.routing.Produces;
import org.kafscale.proxy.routing.RoutingHarness;
import org.kafscale.proxy.routing.RoutingHarness.Retry;

/**
 * What Produce adds to the partition engine, seen from a client of a real listener with scripted
 * brokers behind it: which batches may be retried on a partition's new owner, and acks=0, with
 * and without a rewriter.
 */
class ProduceRouteTest {
    private static final short ACKS_ALL = -1;
    private static final short ACKS_NONE = 0;
    private static final long PRODUCER_ID = 4242;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    /** Producers whose batches carry a producer id: the broker numbers and deduplicates them. */
    enum ProducerWithId {
        IDEMPOTENT {
            @Override
            ProduceRequestData produce(StubTopology topology) {
                return Produces.request(topology, ACKS_ALL, Map.of("orders-0", TestRecords.idempotent(PRODUCER_ID, "v")));
            }
        },
        TRANSACTIONAL {
            @Override
            ProduceRequestData produce(StubTopology topology) {
                return Produces.request(topology, ACKS_ALL, Map.of("orders-0", TestRecords.transactional(PRODUCER_ID, "v")))
                        .setTransactionalId("txn-1");
            }
        };

        abstract ProduceRequestData produce(StubTopology topology);
    }

    @ParameterizedTest
    @EnumSource(ProducerWithId.class)
    void batchWithAProducerIdGetsOneAttemptAndItsRefusalGoesBackToTheClient(ProducerWithId producer) throws IOException {
        // Given orders-0 on broker 1, which refuses it, and broker 2 named as its owner after the refusal
        topology.withPartition("orders", 0, 1).afterInvalidation("orders", 0, 2);
        broker1.on(ApiKeys.PRODUCE, answering(p -> Produces.refused(Errors.NOT_LEADER_OR_FOLLOWER)));
        broker2.on(ApiKeys.PRODUCE, answering(p -> Produces.stored(0)));

        // When the producer writes a batch to orders-0
        ProduceResponseData answer = proxy.connect().send(producer.produce(topology), Produces.VERSION);

        // Then the client gets broker 1's refusal to retry itself, and broker 2 never saw the batch
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), Produces.results(topology, answer).get("orders-0").errorCode());
        assertEquals(0, broker2.requests(ApiKeys.PRODUCE));
        assertEquals(List.of(), proxy.retries());
    }

    @Test
    void plainBatchIsRetriedOnThePartitionsNewOwner() throws IOException {
        // Given orders-0 on broker 1, which refuses it, and broker 2 named as its owner after the refusal
        topology.withPartition("orders", 0, 1).afterInvalidation("orders", 0, 2);
        broker1.on(ApiKeys.PRODUCE, answering(p -> Produces.refused(Errors.NOT_LEADER_OR_FOLLOWER)));
        broker2.on(ApiKeys.PRODUCE, answering(p -> Produces.stored(42)));

        // When a producer without idempotence writes a batch to orders-0
        ProduceResponseData answer = proxy.connect().send(
                Produces.request(topology, ACKS_ALL, Map.of("orders-0", TestRecords.plain("v"))), Produces.VERSION);

        // Then broker 2 stored the batch, and the client gets broker 2's answer
        assertEquals(List.of("v"), values(broker2.awaitRequests(ApiKeys.PRODUCE, 1).get(0)).get("orders-0"));
        assertEquals(Errors.NONE.code(), Produces.results(topology, answer).get("orders-0").errorCode());
        assertEquals(42, Produces.results(topology, answer).get("orders-0").baseOffset());
        assertEquals(List.of(new StubTopology.PartitionKey("orders", 0)), topology.invalidatedPartitions());
        assertEquals(List.of(new Retry(ApiKeys.PRODUCE, RetryCause.LEADER)), proxy.retries());
    }

    @Test
    void produceOfRecordsThatAreNotBatchesGetsTheBrokersCorruptMessageAnswer() throws IOException {
        // Given orders-0 on broker 1, which answers records it cannot read as Kafka does
        topology.withPartition("orders", 0, 1);
        broker1.on(ApiKeys.PRODUCE, answering(p -> Produces.refused(Errors.CORRUPT_MESSAGE)));

        // When a client writes bytes that are not a record batch (the review's probe A16: a batch
        // length of -1994891883) to orders-0
        ProduceResponseData answer = proxy.connect().send(
                Produces.request(topology, ACKS_ALL, Map.of("orders-0", notABatch())), Produces.VERSION);

        // Then the client gets the broker's CORRUPT_MESSAGE on an open connection, not a close
        assertEquals(Errors.CORRUPT_MESSAGE.code(), Produces.results(topology, answer).get("orders-0").errorCode());
        assertEquals(1, broker1.requests(ApiKeys.PRODUCE));
    }

    @Test
    void produceToAPartitionTheTopicDoesNotHaveIsUnknownTopicOrPartition() throws IOException {
        // Given topic orders with partition 0 only, on broker 1
        topology.withPartition("orders", 0, 1);
        broker1.on(ApiKeys.PRODUCE, answering(p -> Produces.stored(0)));

        // When a client writes to orders-999 (the review's probe A19)
        ProduceResponseData answer = proxy.connect().send(
                Produces.request(topology, ACKS_ALL, Map.of("orders-999", TestRecords.plain("v"))), Produces.VERSION);

        // Then it gets the broker's answer for a partition that does not exist (not retriable), and no broker saw it
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), Produces.results(topology, answer).get("orders-999").errorCode());
        assertEquals(0, broker1.requests(ApiKeys.PRODUCE));
    }

    @Test
    void acksZeroProduceWritesEveryPartToItsOwnerAndIsNeverAnswered() throws IOException {
        // Given orders-0 on broker 1 and orders-1 on broker 2 (a broker never answers acks=0, as Kafka defines)
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 2);
        broker1.on(ApiKeys.PRODUCE, answering(p -> Produces.stored(5)));
        RawKafkaConnection client = proxy.connect();

        // When a client sends an acks=0 Produce to both partitions, then an acks=-1 Produce to orders-0
        client.write(Produces.request(topology, ACKS_NONE, Produces.recordPerPartition("orders-0", "orders-1")), Produces.VERSION);
        RequestHeader next = client.write(Produces.request(topology, ACKS_ALL, Map.of("orders-0", TestRecords.plain("next"))),
                Produces.VERSION);

        // Then the first answer the client reads is the second request's (its correlation id is checked) ...
        ProduceResponse nextAnswer = client.read(next);
        assertEquals(Errors.NONE.code(), Produces.results(topology, nextAnswer.data()).get("orders-0").errorCode());
        // ... and each broker got its partition of the acks=0 Produce
        assertEquals(Map.of("orders-0", List.of("value of orders-0")), values(acksZero(broker1, 2)));
        assertEquals(Map.of("orders-1", List.of("value of orders-1")), values(acksZero(broker2, 1)));
    }

    @Test
    void acksZeroWithARewriterSendsRewrittenRecordsNeverTheRefusedPartitionAndReportsWhatWasWritten() throws Exception {
        // Given orders-0 and orders-2 on broker 1, orders-1 on broker 2, and a rewriter that rewrites every value
        // and refuses orders-2
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 2).withPartition("orders", 2, 1);
        RefusingRewriter rewriter = new RefusingRewriter("orders-2");
        proxy.rewriteWith(rewriter);

        // When a client sends an acks=0 Produce to all three
        proxy.connect().write(Produces.request(topology, ACKS_NONE,
                Produces.recordPerPartition("orders-0", "orders-1", "orders-2")), Produces.VERSION);

        // Then the rewriter hears that orders-0 and orders-1 were written ...
        assertEquals(Map.of("orders-0", Errors.NONE, "orders-1", Errors.NONE), rewriter.settled());
        // ... and each broker got the rewritten records of its own partition; orders-2 was sent to none
        assertEquals(Map.of("orders-0", List.of("rewritten value of orders-0")), values(acksZero(broker1, 1)));
        assertEquals(Map.of("orders-1", List.of("rewritten value of orders-1")), values(acksZero(broker2, 1)));
    }

    /** 100 bytes whose batch length field is negative: no batch can be read from them. */
    private static MemoryRecords notABatch() {
        ByteBuffer bytes = ByteBuffer.allocate(100);
        bytes.putLong(0).putInt(-1994891883);
        while (bytes.hasRemaining()) {
            bytes.put((byte) 0x5a);
        }
        return MemoryRecords.readableRecords(bytes.flip());
    }

    private static ScriptedBroker.Script answering(Function<PartitionProduceData, PartitionProduceResponse> result) {
        return request -> answer(Produces.answer(request.data(ProduceRequestData.class), result));
    }

    /** The one acks=0 Produce {@code broker} got, once it has {@code produces} Produce requests in all. */
    private static ScriptedBroker.Request acksZero(ScriptedBroker broker, int produces) {
        List<ScriptedBroker.Request> acksZero = broker.awaitRequests(ApiKeys.PRODUCE, produces).stream()
                .filter(r -> r.data(ProduceRequestData.class).acks() == ACKS_NONE).toList();
        assertEquals(1, acksZero.size(), broker + " acks=0 Produce requests");
        return acksZero.get(0);
    }

    private Map<String, List<String>> values(ScriptedBroker.Request produce) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        Produces.records(topology, produce.data(ProduceRequestData.class))
                .forEach((partition, records) -> values.put(partition, TestRecords.values(records)));
        return values;
    }

    /**
     * A rewriter like the LFS one: replaces every record before the split, refuses one partition,
     * and remembers what it hears of the partitions that were sent.
     */
    private static final class RefusingRewriter implements ProduceRewriter {
        private final String refused;
        private final CompletableFuture<Map<String, Errors>> settled = new CompletableFuture<>();

        RefusingRewriter(String refused) {
            this.refused = refused;
        }

        @Override
        public Future<Outcome> rewrite(ConnectionContext context, Map<PartitionRef, PartitionProduceData> partitions) {
            Map<PartitionRef, Errors> refusals = new HashMap<>();
            partitions.forEach((ref, partition) -> {
                if (name(ref).equals(refused)) {
                    refusals.put(ref, Errors.INVALID_RECORD);
                } else {
                    BaseRecords original = partition.records();
                    partition.setRecords(TestRecords.plain("rewritten " + String.join(",", TestRecords.values(original))));
                }
            });
            return context.loop().newSucceededFuture(new Outcome() {
                @Override
                public Map<PartitionRef, Errors> refused() {
                    return refusals;
                }

                @Override
                public void settled(Map<PartitionRef, Errors> results) {
                    Map<String, Errors> byName = new HashMap<>();
                    results.forEach((ref, error) -> byName.put(name(ref), error));
                    settled.complete(byName);
                }
            });
        }

        Map<String, Errors> settled() throws InterruptedException, ExecutionException, TimeoutException {
            return settled.get(RawKafkaConnection.READ_DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }

        private static String name(PartitionRef ref) {
            return ref.routingName() + "-" + ref.partition();
        }
    }
}
