package org.kafscale.proxy.routing.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answerWhen;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.close;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.hooks.RoutingObserver.ReadAheadOutcome;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.routing.Fetches;
import org.kafscale.proxy.routing.RoutingHarness;
import org.kafscale.proxy.testkit.Eventually;

/**
 * Fetch read-ahead, seen from a consumer of a real listener with scripted brokers behind it: once
 * broker 1's part of a split Fetch brought records, broker 1 is asked again at the offsets the
 * consumer fetches next, and the consumer's next Fetch takes that answer only when it asks that
 * (or a part of it, the rest left out); anything else gets a fresh request.
 *
 * <p>events-0 and events-2 are on broker 1, which has one record at every offset
 * ({@code p<partition>@<offset>}); events-1 is on broker 2, which holds every poll (no data), so
 * every Fetch is split over two brokers.
 */
class ReadAheadRouteTest {
    private static final int LONG_POLL_MS = 30_000;
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final RoutingHarness proxy = new RoutingHarness().readAhead(ReadAheadSettings.DEFAULT);
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();
    private final CompletableFuture<Void> broker2PollEnds = new CompletableFuture<>();
    /** The request broker 1 refuses NOT_LEADER_OR_FOLLOWER (1 first); 0 for none. */
    private volatile int refusedRequest;
    /** The request broker 1 closes the connection on (1 first); 0 for none. */
    private volatile int closedRequest;

    @BeforeEach
    void partitionsOnTwoBrokers() {
        topology.withPartition("events", 0, 1).withPartition("events", 1, 2).withPartition("events", 2, 1);
        broker1.on(ApiKeys.FETCH, request -> broker1.requests(ApiKeys.FETCH) == closedRequest ? close()
                : answer(broker1.requests(ApiKeys.FETCH) == refusedRequest ? refused(request) : recordAtEachOffset(request)));
        broker2.on(ApiKeys.FETCH, request -> answerWhen(broker2PollEnds,
                Fetches.empty(request.data(FetchRequestData.class))));
    }

    @AfterEach
    void stop() throws IOException {
        broker2PollEnds.complete(null);
        proxy.close();
    }

    @Test
    void nextFetchTakesTheAnswerReadAheadAndTheBrokerIsNotAskedTwice() throws IOException {
        // Given a consumer answered with broker 1's records at offset 0
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);
        assertEquals(Map.of("events-0", List.of("p0@0"), "events-1", List.of(), "events-2", List.of("p2@0")),
                Fetches.values(topology, firstAnswer));

        // When it fetches on from where those records end
        FetchResponseData secondAnswer = consumer.send(next(first, firstAnswer), Fetches.VERSION);

        // Then it gets the next records, and broker 1 was asked each offset once (the read-ahead,
        // then the next read-ahead); broker 2's one poll was taken over, not repeated
        assertEquals(Map.of("events-0", List.of("p0@1"), "events-1", List.of(), "events-2", List.of("p2@1")),
                Fetches.values(topology, secondAnswer));
        broker1.awaitRequests(ApiKeys.FETCH, 3);
        assertEquals(List.of(offsets(0, 0), offsets(1, 1), offsets(2, 2)), askedOfBroker1());
        assertEquals(1, broker2.requests(ApiKeys.FETCH));
        assertEquals(List.of(ReadAheadOutcome.ADOPTED, ReadAheadOutcome.ADOPTED), proxy.readAheadOutcomes());
    }

    @Test
    void aSeekGetsAFreshAnswerAndTheReadAheadIsDropped() throws IOException {
        // Given a consumer whose next records broker 1 has read ahead
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        consumer.send(first, Fetches.VERSION);
        awaitHeld();

        // When it seeks back to offset 0 and fetches
        FetchResponseData answer = consumer.send(first, Fetches.VERSION);

        // Then it gets offset 0 again, from a fresh request to broker 1
        assertEquals(Map.of("events-0", List.of("p0@0"), "events-1", List.of(), "events-2", List.of("p2@0")),
                Fetches.values(topology, answer));
        assertEquals(offsets(0, 0), askedOfBroker1().get(2));
        assertTrue(proxy.readAheadOutcomes().contains(ReadAheadOutcome.MISSED), "read-ahead dropped as missed");
    }

    @Test
    void aPausedPartitionIsLeftOutOfTheAnswerReadAheadForTheOthers() throws IOException {
        // Given a consumer whose next records broker 1 has read ahead
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);
        awaitHeld();

        // When it pauses events-2 (or still buffers its records) and fetches the others on
        FetchRequestData paused = next(first, firstAnswer);
        paused.topics().get(0).partitions().removeIf(p -> p.partition() == 2);
        FetchResponseData answer = consumer.send(paused, Fetches.VERSION);

        // Then it gets events-0's next record from the answer read ahead, and nothing of events-2;
        // broker 1 is next asked for events-0 alone, ahead of the Fetch after
        assertEquals(Map.of("events-0", List.of("p0@1"), "events-1", List.of()), Fetches.values(topology, answer));
        broker1.awaitRequests(ApiKeys.FETCH, 3);
        assertEquals(List.of(offsets(0, 0), offsets(1, 1), Map.of("events-0", 2L)), askedOfBroker1());
        // (broker 1's answer read ahead, and broker 2's poll taken over)
        assertEquals(List.of(ReadAheadOutcome.ADOPTED, ReadAheadOutcome.ADOPTED), proxy.readAheadOutcomes());

        // And when it resumes events-2, whose record at offset 1 it never got, it gets that record
        FetchRequestData resumed = next(first, firstAnswer);
        resumed.topics().get(0).partitions().forEach(p -> p.setFetchOffset(p.partition() == 0 ? 2 : p.fetchOffset()));
        FetchResponseData resumedAnswer = consumer.send(resumed, Fetches.VERSION);
        assertEquals(Map.of("events-0", List.of("p0@2"), "events-1", List.of(), "events-2", List.of("p2@1")),
                Fetches.values(topology, resumedAnswer));
        assertEquals(offsets(2, 1), askedOfBroker1().get(3));
        assertTrue(proxy.readAheadOutcomes().contains(ReadAheadOutcome.MISSED), "the narrower read-ahead dropped");
    }

    @Test
    void anotherIsolationLevelGetsAFreshAnswer() throws IOException {
        // Given a read_uncommitted consumer whose next records broker 1 has read ahead
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);
        awaitHeld();

        // When it fetches on at the same offsets with read_committed
        consumer.send(next(first, firstAnswer).setIsolationLevel((byte) 1), Fetches.VERSION);

        // Then broker 1 was asked again, with read_committed
        FetchRequestData asked = broker1.awaitRequests(ApiKeys.FETCH, 3).get(2).data(FetchRequestData.class);
        assertEquals((byte) 1, asked.isolationLevel());
        assertTrue(proxy.readAheadOutcomes().contains(ReadAheadOutcome.MISSED), "read-ahead dropped as missed");
    }

    @Test
    void aReadAheadAnswerWithAnErrorIsDroppedAndTheNextFetchAsksAfresh() throws IOException {
        // Given broker 1 answers the read-ahead (its second request) NOT_LEADER_OR_FOLLOWER (the leader moved)
        refusedRequest = 2;
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);
        Eventually.await(DEADLINE, "the read-ahead's refusal dropped",
                () -> proxy.readAheadOutcomes().contains(ReadAheadOutcome.ERROR));

        // When the consumer fetches on
        FetchResponseData answer = consumer.send(next(first, firstAnswer), Fetches.VERSION);

        // Then it gets what broker 1 says now, from a fresh request
        assertEquals(Map.of("events-0", List.of("p0@1"), "events-1", List.of(), "events-2", List.of("p2@1")),
                Fetches.values(topology, answer));
        assertEquals(Map.of("events-0", Errors.NONE, "events-1", Errors.NONE, "events-2", Errors.NONE),
                Fetches.errors(topology, answer));
        assertEquals(offsets(1, 1), askedOfBroker1().get(2));
    }

    @Test
    void aBrokerConnectionLostMidReadAheadLosesAndRepeatsNothing() throws IOException {
        // Given broker 1 drops the connection its read-ahead (its second request) came on
        closedRequest = 2;
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);
        broker1.awaitRequests(ApiKeys.FETCH, 2);

        // When the consumer fetches on
        FetchResponseData answer = consumer.send(next(first, firstAnswer), Fetches.VERSION);

        // Then it gets the next records once each, from a fresh request on a fresh channel
        assertEquals(Map.of("events-0", List.of("p0@1"), "events-1", List.of(), "events-2", List.of("p2@1")),
                Fetches.values(topology, answer));
        assertEquals(Map.of("events-0", Errors.NONE, "events-1", Errors.NONE, "events-2", Errors.NONE),
                Fetches.errors(topology, answer));
        assertEquals(offsets(1, 1), askedOfBroker1().get(2));
    }

    @Test
    void anAnswerOverTheProcessWideBoundIsNotHeld() throws IOException {
        // Given a proxy that may hold 10 bytes of read-ahead in all (less than any answer)
        proxy.readAhead(new ReadAheadSettings(true, 10));
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);
        Eventually.await(DEADLINE, "the read-ahead dropped",
                () -> proxy.readAheadOutcomes().contains(ReadAheadOutcome.OVER_BUDGET));

        // When the consumer fetches on
        FetchResponseData answer = consumer.send(next(first, firstAnswer), Fetches.VERSION);

        // Then nothing was held, and its records came from a fresh request
        assertEquals(0, proxy.readAheadHeldBytes());
        assertEquals(Map.of("events-0", List.of("p0@1"), "events-1", List.of(), "events-2", List.of("p2@1")),
                Fetches.values(topology, answer));
        assertEquals(offsets(1, 1), askedOfBroker1().get(2));
    }

    @Test
    void closingTheConnectionReleasesWhatIsHeld() throws IOException {
        // Given a consumer whose next records broker 1 has read ahead
        RawKafkaConnection consumer = proxy.connect();
        consumer.send(Fetches.request(topology, LONG_POLL_MS, "events-0", "events-1", "events-2"), Fetches.VERSION);
        awaitHeld();

        // When it disconnects
        consumer.close();

        // Then the proxy holds nothing for it (and the leak detector sees every frame released)
        Eventually.await(DEADLINE, "held read-ahead released", () -> proxy.readAheadHeldBytes() == 0);
        Eventually.await(DEADLINE, "the read-ahead dropped as closed",
                () -> proxy.readAheadOutcomes().contains(ReadAheadOutcome.CLOSED));
    }

    @Test
    void aFetchToASingleBrokerIsNotReadAhead() throws IOException {
        // Given a consumer of broker 1's partitions only (its Fetch is not split)
        RawKafkaConnection consumer = proxy.connect();
        FetchRequestData first = Fetches.request(topology, LONG_POLL_MS, "events-0", "events-2");
        FetchResponseData firstAnswer = consumer.send(first, Fetches.VERSION);

        // When it fetches on
        consumer.send(next(first, firstAnswer), Fetches.VERSION);

        // Then broker 1 saw just the consumer's two Fetches: the client overlaps nothing a direct one would
        assertEquals(List.of(offsets(0, 0), offsets(1, 1)), askedOfBroker1());
        assertEquals(List.of(), proxy.readAheadOutcomes());
    }

    private void awaitHeld() {
        Eventually.await(DEADLINE, "the read-ahead held", () -> proxy.readAheadHeldBytes() > 0);
    }

    /** What a consumer fetches next: each partition after the records it got. */
    private FetchRequestData next(FetchRequestData fetch, FetchResponseData answer) {
        Map<String, List<String>> values = Fetches.values(topology, answer);
        FetchRequestData next = fetch.duplicate();
        next.topics().forEach(t -> t.partitions().forEach(p -> p.setFetchOffset(p.fetchOffset()
                + values.getOrDefault(topology.topicName(t.topicId()) + "-" + p.partition(), List.of()).size())));
        return next;
    }

    /** The offsets of events-0 and events-2 in one request to broker 1. */
    private static Map<String, Long> offsets(long events0, long events2) {
        Map<String, Long> offsets = new LinkedHashMap<>();
        offsets.put("events-0", events0);
        offsets.put("events-2", events2);
        return offsets;
    }

    /** Each Fetch broker 1 received, as the offset it asked per partition. */
    private List<Map<String, Long>> askedOfBroker1() {
        List<Map<String, Long>> asked = new ArrayList<>();
        for (ScriptedBroker.Request request : broker1.received(ApiKeys.FETCH)) {
            Map<String, Long> offsets = new LinkedHashMap<>();
            request.data(FetchRequestData.class).topics().forEach(t -> t.partitions().forEach(p -> offsets.put(
                    topology.topicName(t.topicId()) + "-" + p.partition(), p.fetchOffset())));
            asked.add(offsets);
        }
        return asked;
    }

    /** One record at the offset asked for each partition, with the high watermark just past it. */
    private static FetchResponseData recordAtEachOffset(ScriptedBroker.Request request) {
        FetchResponseData answer = Fetches.answer(request.data(FetchRequestData.class),
                p -> TestRecords.plainAt(p.fetchOffset(), "p" + p.partition() + "@" + p.fetchOffset()));
        answer.responses().forEach(t -> t.partitions().forEach(p -> p.setHighWatermark(100)));
        return answer;
    }

    private static FetchResponseData refused(ScriptedBroker.Request request) {
        FetchResponseData answer = Fetches.empty(request.data(FetchRequestData.class));
        answer.responses().forEach(t -> t.partitions().forEach(p -> p.setErrorCode(
                Errors.NOT_LEADER_OR_FOLLOWER.code())));
        return answer;
    }
}
