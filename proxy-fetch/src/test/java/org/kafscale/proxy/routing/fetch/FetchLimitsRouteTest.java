package org.kafscale.proxy.routing.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answerWhen;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
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
 * A Fetch's limits through the proxy, as a consumer of a real listener sees them with scripted
 * brokers behind it: an answer merged from three brokers keeps to the request's {@code max_bytes}
 * as one broker's answer does (KIP-74 included), and a consumer with a rack (KIP-392) is served by
 * the leaders and never sees a broker's preferred read replica.
 *
 * <p>Which parts an early answer includes depends on when their brokers' answers arrive, so
 * the limit's rules, partition by partition, are {@link FetchByteLimitTest}'s; here a consumer
 * reads everything in answers that keep to the limit. events-0 is on broker 1, events-1 on broker
 * 2 and events-2 on broker 3 throughout.
 */
class FetchLimitsRouteTest {
    private static final int LONG_POLL_MS = 30_000;
    /** About 1 KB: one record of 1,000 bytes in one batch. */
    private static final String KILOBYTE = "k".repeat(1_000);
    private static final int BATCH_BYTES = TestRecords.plain(KILOBYTE).sizeInBytes();
    private static final String CLIENT_RACK = "rack-a";
    private static final int FOLLOWER = 3;
    /** Batches each partition has in the test that reads them all. */
    private static final long BATCHES = 4;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final ScriptedBroker broker3 = proxy.broker(3);
    private final StubTopology topology = proxy.topology();
    private final CompletableFuture<Void> pollEnds = new CompletableFuture<>();

    @BeforeEach
    void threePartitionsOnThreeBrokers() {
        topology.withPartition("events", 0, 1).withPartition("events", 1, 2).withPartition("events", 2, 3);
    }

    @AfterEach
    void stop() throws IOException {
        pollEnds.complete(null);
        proxy.close();
    }

    @Test
    void consumerReadsEveryRecordOfThreeBrokersInAnswersWithinMaxBytes() throws IOException {
        // Given each broker has four batches of about 1 KB for its partition, one per offset; the
        // first answers wait until all three brokers were asked, so that they arrive together
        CompletableFuture<Void> everyBrokerAsked = new CompletableFuture<>();
        AtomicInteger asked = new AtomicInteger();
        for (ScriptedBroker broker : List.of(broker1, broker2, broker3)) {
            broker.on(ApiKeys.FETCH, request -> {
                if (asked.incrementAndGet() == 3) {
                    everyBrokerAsked.complete(null);
                }
                return answerWhen(everyBrokerAsked, batchAtOffset(request, broker.id()));
            });
        }
        RawKafkaConnection consumer = proxy.connect();
        int maxBytes = BATCH_BYTES * 3 / 2;

        // When a consumer with max_bytes room for one and a half batches fetches until it has read
        // every partition to its end, each time from the offsets it has reached
        Map<String, Long> offsets = new LinkedHashMap<>(Map.of("events-0", 0L, "events-1", 0L, "events-2", 0L));
        List<String> read = new ArrayList<>();
        List<Integer> answerBytes = new ArrayList<>();
        for (int fetches = 0; fetches < 50 && offsets.values().stream().anyMatch(o -> o < BATCHES); fetches++) {
            FetchResponseData answer = consumer.send(fetchFrom(offsets).setMaxBytes(maxBytes), Fetches.VERSION);
            answerBytes.add(recordBytes(answer));
            Fetches.values(topology, answer).forEach((partition, values) -> {
                read.addAll(values);
                offsets.merge(partition, (long) values.size(), Long::sum);
            });
        }

        // Then it read every record, and no answer held more record bytes than max_bytes
        assertEquals(List.of(BATCHES, BATCHES, BATCHES), List.copyOf(offsets.values()), "offsets reached");
        assertEquals(3 * BATCHES, read.size());
        assertTrue(answerBytes.stream().allMatch(bytes -> bytes <= maxBytes), "record bytes per answer " + answerBytes);
    }

    @Test
    void parkedPollIsNotAdoptedByAFetchWithASmallerLimit() throws IOException {
        // Given a consumer answered with broker 1's records while broker 2 still held its poll of events-1
        broker1.on(ApiKeys.FETCH, request -> answer(records(request, 10, KILOBYTE)));
        broker2.on(ApiKeys.FETCH, request -> answerWhen(pollEnds, records(request, 20, KILOBYTE, KILOBYTE)));
        RawKafkaConnection consumer = proxy.connect();
        consumer.send(fetch("events-0", "events-1"), Fetches.VERSION);

        // When the consumer fetches events-1 again with a smaller max_bytes, and broker 2's polls then end
        RequestHeader second = consumer.write(fetch("events-1").setMaxBytes(BATCH_BYTES), Fetches.VERSION);
        broker2.awaitRequests(ApiKeys.FETCH, 2);
        pollEnds.complete(null);
        FetchResponseData answer = consumer.<FetchResponse>read(second).data();

        // Then broker 2 was asked again with that limit instead of the earlier poll being taken over
        List<Integer> limits = new ArrayList<>();
        broker2.received(ApiKeys.FETCH).forEach(r -> limits.add(r.data(FetchRequestData.class).maxBytes()));
        assertEquals(List.of(fetch().maxBytes(), BATCH_BYTES), limits, "limits broker 2 was asked with");
        assertEquals(Map.of("events-1", List.of(KILOBYTE, KILOBYTE)), Fetches.values(topology, answer));
    }

    @Test
    void consumerWithARackIsServedByTheLeader() throws IOException {
        // Given a leader that, like a broker with a rack-aware replica selector, sends a consumer with
        // a rack to a follower (no records, a preferred read replica) and serves one without a rack
        broker2.on(ApiKeys.FETCH, request -> answer(rackAware(request, broker2.id())));

        // When a consumer with a rack fetches that leader's partition
        FetchResponseData answer = proxy.connect().send(fetch("events-1").setRackId(CLIENT_RACK), Fetches.VERSION);

        // Then the leader serves the records
        assertEquals(Map.of("events-1", List.of("from 2")), Fetches.values(topology, answer));
    }

    @Test
    void fetchSplitAcrossBrokersAsksEveryBrokerWithoutTheClientsRack() throws IOException {
        // Given leaders that serve a consumer without a rack and send one with a rack to a follower
        for (ScriptedBroker broker : List.of(broker1, broker2, broker3)) {
            broker.on(ApiKeys.FETCH, request -> answer(rackAware(request, broker.id())));
        }

        // When a consumer with a rack fetches partitions of every broker
        proxy.connect().send(fetch("events-0", "events-1", "events-2").setRackId(CLIENT_RACK), Fetches.VERSION);

        // Then every broker was asked without the rack, so each serves its partition itself
        List<String> racks = new ArrayList<>();
        for (ScriptedBroker broker : List.of(broker1, broker2, broker3)) {
            racks.add(broker.awaitRequests(ApiKeys.FETCH, 1).get(0).data(FetchRequestData.class).rackId());
        }
        assertEquals(List.of("", "", ""), racks);
    }

    @Test
    void brokersPreferredReadReplicaNeverReachesTheClient() throws IOException {
        // Given a broker whose replica selector names a follower for every consumer, rack or not
        broker2.on(ApiKeys.FETCH, request -> answer(withPreferredReadReplica(records(request, 20))));

        // When a consumer fetches that broker's partition
        FetchResponseData answer = proxy.connect().send(fetch("events-1"), Fetches.VERSION);

        // Then the answer names no read replica: the broker id is not one the client may see
        assertEquals(Map.of("events-1", -1), preferredReadReplicas(answer));
    }

    /** A Fetch of each partition from its offset. */
    private FetchRequestData fetchFrom(Map<String, Long> offsets) {
        FetchRequestData fetch = fetch(offsets.keySet().toArray(String[]::new));
        fetch.topics().forEach(t -> t.partitions().forEach(p -> p.setFetchOffset(
                offsets.get(topology.topicName(t.topicId()) + "-" + p.partition()))));
        return fetch;
    }

    /** Each partition's batch at its fetch offset (about 1 KB), none from offset {@link #BATCHES} on. */
    private static FetchResponseData batchAtOffset(ScriptedBroker.Request request, int brokerId) {
        FetchResponseData answer = Fetches.answer(request.data(FetchRequestData.class), p -> p.fetchOffset() < BATCHES
                ? TestRecords.plain(KILOBYTE + brokerId + "@" + p.fetchOffset()) : TestRecords.empty());
        answer.responses().forEach(t -> t.partitions().forEach(p -> p.setHighWatermark(BATCHES)));
        return answer;
    }

    private FetchRequestData fetch(String... partitions) {
        return Fetches.request(topology, LONG_POLL_MS, partitions);
    }

    /** Each partition of the request with one batch of {@code values} (none for no values). */
    private static FetchResponseData records(ScriptedBroker.Request request, long highWatermark, String... values) {
        FetchResponseData answer = Fetches.answer(request.data(FetchRequestData.class),
                p -> values.length == 0 ? TestRecords.empty() : TestRecords.plain(values));
        answer.responses().forEach(t -> t.partitions().forEach(p -> p.setHighWatermark(highWatermark)));
        return answer;
    }

    /** As a leader whose selector picks a follower in the client's rack: no records and that follower for a rack. */
    private static FetchResponseData rackAware(ScriptedBroker.Request request, int brokerId) {
        if (request.data(FetchRequestData.class).rackId().isEmpty()) {
            return records(request, brokerId * 10L, "from " + brokerId);
        }
        return withPreferredReadReplica(records(request, brokerId * 10L));
    }

    private static FetchResponseData withPreferredReadReplica(FetchResponseData answer) {
        answer.responses().forEach(t -> t.partitions().forEach(p -> p.setPreferredReadReplica(FOLLOWER)));
        return answer;
    }

    private Map<String, Integer> preferredReadReplicas(FetchResponseData answer) {
        Map<String, Integer> replicas = new LinkedHashMap<>();
        Fetches.results(topology, answer).forEach((partition, p) -> replicas.put(partition, p.preferredReadReplica()));
        return replicas;
    }

    private static int recordBytes(FetchResponseData answer) {
        return answer.responses().stream().flatMap(t -> t.partitions().stream())
                .mapToInt(p -> p.records() == null ? 0 : p.records().sizeInBytes()).sum();
    }
}
