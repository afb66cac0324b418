package org.kafscale.proxy.routing.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answerWhen;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.silence;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.routing.Fetches;
import org.kafscale.proxy.routing.RoutingHarness;

/**
 * What Fetch adds to the partition engine, seen from a consumer of a real listener with scripted
 * brokers behind it: no waiting on a broker's long poll once another broker brought records,
 * waiting for every part while none brought any, the parked poll the next Fetch adopts, and the
 * deadline that answers whatever brokers do.
 *
 * <p>events-0 is on broker 1 and events-1 on broker 2 throughout.
 */
class FetchRouteTest {
    /** Longer than any read of the client: a test that depends on it ending fails instead. */
    private static final int LONG_POLL_MS = 30_000;
    private static final int SHORT_POLL_MS = 200;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();
    /** Ends the polls broker 2 holds. */
    private final CompletableFuture<Void> broker2PollEnds = new CompletableFuture<>();

    @BeforeEach
    void twoPartitionsOnTwoBrokers() {
        topology.withPartition("events", 0, 1).withPartition("events", 1, 2);
    }

    @AfterEach
    void stop() throws IOException {
        broker2PollEnds.complete(null);
        proxy.close();
    }

    @Test
    void recordsOfOneBrokerAreAnsweredWithoutWaitingForAnotherBrokersLongPoll() throws IOException {
        // Given broker 1 has a record for events-0, and broker 2 holds its poll of events-1
        broker1.on(ApiKeys.FETCH, request -> answer(records(request, "first")));
        broker2.on(ApiKeys.FETCH, request -> answerWhen(broker2PollEnds, empty(request)));

        // When a consumer fetches both, willing to wait 30 s for data
        FetchResponseData answer = proxy.connect().send(Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1"),
                Fetches.VERSION);

        // Then it gets broker 1's record while broker 2 still holds its poll; events-1 is empty, without error
        assertEquals(1, broker2.awaitRequests(ApiKeys.FETCH, 1).size());
        assertEquals(0, broker2.answers(ApiKeys.FETCH), "broker 2's poll has not ended");
        assertEquals(Map.of("events-0", List.of("first"), "events-1", List.of()), Fetches.values(topology, answer));
        assertEquals(Map.of("events-0", Errors.NONE, "events-1", Errors.NONE), Fetches.errors(topology, answer));
    }

    @Test
    void answersWithoutRecordsWaitForEachOtherAndAreMergedIntoOneAnswer() throws IOException {
        // Given brokers with nothing new, whose answers say which broker gave them (high watermark 11 and 22)
        broker1.on(ApiKeys.FETCH, request -> answer(withHighWatermark(empty(request), 11)));
        broker2.on(ApiKeys.FETCH, request -> answer(withHighWatermark(empty(request), 22)));

        // When a consumer fetches both
        FetchResponseData answer = proxy.connect().send(Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1"),
                Fetches.VERSION);

        // Then one answer lists both partitions in request order, each as its broker answered it
        Map<String, Long> highWatermarks = new LinkedHashMap<>();
        Fetches.results(topology, answer).forEach((partition, p) -> highWatermarks.put(partition, p.highWatermark()));
        assertEquals(List.of("events-0", "events-1"), List.copyOf(highWatermarks.keySet()));
        assertEquals(List.of(11L, 22L), List.copyOf(highWatermarks.values()));
    }

    @Test
    void nextIdenticalFetchAdoptsTheParkedPollAndGetsItsRecords() throws IOException {
        // Given a consumer answered with broker 1's record while broker 2 still held its poll of events-1
        broker1.on(ApiKeys.FETCH, request -> answer(broker1.requests(ApiKeys.FETCH) == 1 ? records(request, "first")
                : empty(request)));
        broker2.on(ApiKeys.FETCH, request -> answerWhen(broker2PollEnds, records(request, "late")));
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData fetch = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1");
        consumer.send(fetch, Fetches.VERSION);

        // When the consumer sends the same Fetch again (broker 1 has nothing new), and broker 2's poll then ends with a record
        RequestHeader second = consumer.write(fetch, Fetches.VERSION);
        broker1.awaitRequests(ApiKeys.FETCH, 2);
        broker2PollEnds.complete(null);
        FetchResponse answer = consumer.read(second);

        // Then broker 2 was sent one poll only, and the second Fetch gets the record that poll brought
        assertEquals(1, broker2.requests(ApiKeys.FETCH));
        assertEquals(Map.of("events-0", List.of(), "events-1", List.of("late")), Fetches.values(topology, answer.data()));
    }

    @Test
    void fetchIsAnsweredAfterItsMaxWaitWhenNoBrokerAnswers() throws IOException {
        // Given brokers that never answer a Fetch
        broker1.on(ApiKeys.FETCH, request -> silence());
        broker2.on(ApiKeys.FETCH, request -> silence());

        // When a consumer fetches from both, willing to wait 200 ms
        FetchResponseData answer = proxy.connect().send(Fetches.request(topology, SHORT_POLL_MS, "events-0", "events-1"),
                Fetches.VERSION);

        // Then it is answered anyway, every partition empty and without error
        assertEquals(Map.of("events-0", List.of(), "events-1", List.of()), Fetches.values(topology, answer));
        assertEquals(Map.of("events-0", Errors.NONE, "events-1", Errors.NONE), Fetches.errors(topology, answer));
        assertEquals(0, broker1.answers(ApiKeys.FETCH) + broker2.answers(ApiKeys.FETCH), "no broker answered");
        // and each as a broker answers a partition it has nothing for: no aborted-transaction list
        answer.responses().forEach(t -> t.partitions().forEach(p -> assertNull(p.abortedTransactions(),
                "partition " + p.partitionIndex() + " aborted transactions")));
    }

    private static FetchResponseData records(ScriptedBroker.Request request, String value) {
        return Fetches.answer(request.data(FetchRequestData.class), p -> TestRecords.plain(value));
    }

    private static FetchResponseData empty(ScriptedBroker.Request request) {
        return Fetches.empty(request.data(FetchRequestData.class));
    }

    private static FetchResponseData withHighWatermark(FetchResponseData answer, long highWatermark) {
        answer.responses().forEach(t -> t.partitions().forEach(p -> p.setHighWatermark(highWatermark)));
        return answer;
    }
}
