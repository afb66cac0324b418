package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.junit.jupiter.api.AfterAll;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestFrames;

/**
 * Coverage-guided fuzzing of the merge of broker answers: a client's Produce, Fetch or ListOffsets
 * names a partition on each of two brokers, so routing splits it, and while broker 1 answers
 * correctly broker 2 answers with a correct response header followed by whatever bytes the
 * fuzzer chose (every time it is asked, retries included).
 *
 * <p>Documented outcome ({@code BackendForwarder}): an answer that does not parse closes its
 * broker channel and counts as a broken connection, so the client gets a merged answer that
 * parses (the bad part answered with an error) or, once retries are spent, the error answer; an
 * answer that parses is merged. Never garbage passed on, never a routing failure, never a request
 * left unanswered, and no buffer leaks (the paranoid detector, after the class).
 */
class BrokerAnswersFuzzTest {
    private static final int CORRELATION_ID = 17;
    private static final RoutingHarness PROXY = new RoutingHarness();
    private static final StubTopology TOPOLOGY = PROXY.topology();
    /** What broker 2 answers, set per input. */
    private static volatile byte[] broker2Answer = new byte[0];

    static {
        ScriptedBroker broker1 = PROXY.broker(1);
        ScriptedBroker broker2 = PROXY.broker(2);
        TOPOLOGY.withPartition("events", 0, 1).withPartition("events", 1, 2);
        for (ApiKeys api : List.of(ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.LIST_OFFSETS)) {
            broker1.on(api, request -> ScriptedBroker.Response.answer(request.errorAnswer(Errors.NONE)));
            broker2.on(api, request -> ScriptedBroker.Response.raw(broker2Answer));
        }
    }

    @AfterAll
    static void stop() throws IOException {
        PROXY.close();
    }

    /** One request of each kind, naming events-0 (broker 1) and events-1 (broker 2). */
    private enum Split {
        PRODUCE(ApiKeys.PRODUCE, Produces.VERSION) {
            @Override
            ApiMessage body() {
                return Produces.request(TOPOLOGY, (short) -1, Produces.recordPerPartition("events-0", "events-1"));
            }
        },
        FETCH(ApiKeys.FETCH, Fetches.VERSION) {
            @Override
            ApiMessage body() {
                return Fetches.request(TOPOLOGY, 0, "events-0", "events-1");
            }
        },
        LIST_OFFSETS(ApiKeys.LIST_OFFSETS, ListOffsets.VERSION) {
            @Override
            ApiMessage body() {
                ListOffsetsRequestData request = ListOffsets.latest("events", 0);
                ListOffsetsTopic topic = request.topics().get(0);
                List<ListOffsetsPartition> both = new ArrayList<>(topic.partitions());
                both.add(new ListOffsetsPartition().setPartitionIndex(1).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP));
                topic.setPartitions(both);
                return request;
            }
        };

        final ApiKeys api;
        final short version;

        Split(ApiKeys api, short version) {
            this.api = api;
            this.version = version;
        }

        abstract ApiMessage body();
    }

    @FuzzTest
    void aBrokerAnsweringAnyBytesLeavesTheClientAParsedAnswerOrAClose(FuzzedDataProvider data) throws IOException {
        // The proxy, its brokers and this client talk over loopback; Jazzer's SSRF detector would flag it.
        BugDetectors.allowNetworkConnections((host, port) -> FuzzClient.isLoopback(host));
        Split split = data.pickValue(Split.values());
        broker2Answer = data.consumeRemainingAsBytes();
        String sent = split + " split over two brokers, broker 2 answering " + broker2Answer.length + " bytes";
        try (FuzzClient client = new FuzzClient(PROXY.port())) {
            client.send(TestFrames.request(split.body(), split.version, CORRELATION_ID));
            client.answerOrClose(split.api, split.version, CORRELATION_ID, sent);
        }
        assertEquals(List.of(), PROXY.drainRoutingFailures(), "routing failures for " + sent);
    }
}
