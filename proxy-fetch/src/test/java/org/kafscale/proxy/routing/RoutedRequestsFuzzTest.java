package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.junit.jupiter.api.AfterAll;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.TestFrames;
import org.kafscale.proxy.routing.apis.Apis;
import org.kafscale.proxy.routing.apis.RouteSpec;

/**
 * Coverage-guided fuzzing of routing with the bodies it decodes: Produce, Fetch, the partition
 * APIs, the group and transaction APIs and the admin APIs routing looks into, sent by a client to
 * a real listener ({@link RoutingHarness}) with two scripted brokers behind it that answer every
 * request at once with Kafka's own empty answer.
 *
 * <p>The fuzzer picks the API, a version it has and the body bytes (the header is correct, so the
 * body is what routing meets). Documented outcomes: an answer that parses as the answer to that
 * request, or a close (a body that does not parse: "body does not parse"). Routing never throws
 * and never fails its reply (the client would see a bare close for a request that parsed), no
 * request goes unanswered, and no buffer leaks (the paranoid detector, after the class).
 */
class RoutedRequestsFuzzTest {
    /** The routes that decode the body: everything but the local answers and the opaque forwards. */
    private static final List<ApiKeys> ROUTED = Apis.all().values().stream()
            .filter(RouteSpec.Typed.class::isInstance)
            .map(RouteSpec::api)
            .sorted()
            .toList();
    private static final int CORRELATION_ID = 41;
    private static final int PING_CORRELATION_ID = 42;
    private static final RoutingHarness PROXY = new RoutingHarness();

    static {
        for (int id = 1; id <= 2; id++) {
            ScriptedBroker broker = PROXY.broker(id);
            for (ApiKeys api : ApiKeys.values()) {
                broker.on(api, request -> ScriptedBroker.Response.answer(request.errorAnswer(Errors.NONE)));
            }
        }
        PROXY.topology().withPartition("events", 0, 1).withPartition("events", 1, 2)
                .withCoordinator("group", 1).withCoordinator("txn", 2);
    }

    @AfterAll
    static void stop() throws IOException {
        PROXY.close();
    }

    @FuzzTest
    void routedRequestsGetAnAnswerOrADocumentedClose(FuzzedDataProvider data) throws IOException {
        // The proxy, its brokers and this client talk over loopback; Jazzer's SSRF detector would flag it.
        BugDetectors.allowNetworkConnections((host, port) -> FuzzClient.isLoopback(host));
        ApiKeys api = data.pickValue(ROUTED);
        short version = (short) data.consumeInt(api.oldestVersion(), api.latestVersion());
        byte[] body = data.consumeRemainingAsBytes();
        String sent = api + " v" + version + " with a body of " + body.length + " bytes";
        try (FuzzClient client = new FuzzClient(PROXY.port())) {
            client.send(TestFrames.request(api, version, CORRELATION_ID, body));
            if (hasNoAnswer(api, version, body)) {
                // acks=0: nothing comes back for it; a request after it shows the connection still works.
                client.send(TestFrames.request(ListOffsets.latest("events", 0), ListOffsets.VERSION, PING_CORRELATION_ID));
                client.answerOrClose(ApiKeys.LIST_OFFSETS, ListOffsets.VERSION, PING_CORRELATION_ID, "a ListOffsets after " + sent);
            } else {
                client.answerOrClose(api, version, CORRELATION_ID, sent);
            }
        }
        assertEquals(List.of(), PROXY.drainRoutingFailures(), "routing failures for " + sent);
    }

    /** A Produce with acks=0 that parses: Kafka defines no answer to it. */
    private static boolean hasNoAnswer(ApiKeys api, short version, byte[] body) {
        if (api != ApiKeys.PRODUCE) {
            return false;
        }
        try {
            ProduceRequestData produce = (ProduceRequestData) AbstractRequest.parseRequest(api, version,
                    new ByteBufferAccessor(ByteBuffer.wrap(body))).request.data();
            return produce.acks() == 0;
        } catch (RuntimeException doesNotParse) {
            return false;
        }
    }
}
