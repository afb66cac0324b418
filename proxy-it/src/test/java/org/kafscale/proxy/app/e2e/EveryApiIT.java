package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.routing.apis.Apis;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every API key the proxy advertises, at every version it advertises, answers through the proxy
 * as the broker a client would have asked answers directly: the same errors, the same shape
 * (see {@link AnswerShape}), and no broker address or node id the client should not see. The
 * allowed differences are listed, with their reasons, in {@link KnownDifferences}; the requests
 * are in {@link RepresentativeRequests}, and an advertised key without one fails the test.
 *
 * <p>Kroxylicious' ProxyRpcTest is the idea; this one runs against real brokers.
 */
class EveryApiIT {
    private static final Logger LOGGER = LoggerFactory.getLogger(EveryApiIT.class);
    private static final Duration READY = Duration.ofSeconds(30);
    /**
     * APIs that describe a group whose state moves on its own while the test runs (the member
     * joined once is given its assignment, then fenced once its session times out): the answer
     * through the proxy and the broker's, asked one after the other, can fall either side of such
     * a change, so the pair is asked again until they agree. A difference the proxy makes lasts
     * to the deadline and still fails.
     */
    private static final Set<ApiKeys> GROUP_STATE_MOVES = EnumSet.of(ApiKeys.CONSUMER_GROUP_DESCRIBE,
            ApiKeys.SHARE_GROUP_DESCRIBE, ApiKeys.STREAMS_GROUP_DESCRIBE);
    private static final short API_VERSIONS_VERSION = 3;

    /** Keys the proxy may not advertise, with a request each; those it does advertise are skipped. */
    private static final Map<ApiKeys, ApiMessage> UNADVERTISED_CANDIDATES = Map.of(
            ApiKeys.DESCRIBE_LOG_DIRS, new DescribeLogDirsRequestData().setTopics(null),
            ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, new GetTelemetrySubscriptionsRequestData().setClientInstanceId(Uuid.ZERO_UUID));
    /** Key ids no Kafka 4 broker knows: LeaderAndIsr (removed with ZooKeeper) and one never assigned. */
    private static final List<Integer> UNKNOWN_KEY_IDS = List.of(4, 999);

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);

    private static ApiTestState state;
    private static EtcdProcess etcd;

    @BeforeAll
    static void makeState() throws Exception {
        state = ApiTestState.create(KAFKA.cluster());
        etcd = EtcdProcess.startNew();
        // KafScale's keys for the same cluster, without group or transaction leases: those
        // coordinators must be found, not guessed
        try (KafscaleEtcdWriter kafscale = KafscaleEtcdWriter.connect(etcd.endpoint())) {
            List<String> topics = List.of(ApiTestState.TOPIC, ApiTestState.MARKER_TOPIC);
            kafscale.publishSnapshot(KAFKA.cluster(), topics);
            kafscale.publishPartitionLeases(KAFKA.cluster(), topics);
        }
    }

    @AfterAll
    static void closeState() {
        if (etcd != null) {
            etcd.close();
        }
        if (state != null) {
            state.close();
        }
    }

    @Test
    void everyApiTheProxyRoutesHasARepresentativeRequest() {
        // Given the proxy's table of APIs; When it is compared with the representatives
        Set<ApiKeys> missing = new TreeSet<>(Apis.catalog().all().values().stream().filter(ApiSpec::served)
                .map(ApiSpec::api).toList());
        missing.removeAll(RepresentativeRequests.all().keySet());
        // Then each has one (EveryApiIT fails for an advertised key without one in any case)
        assertEquals(Set.of(), missing, "served ApiCatalog keys without a representative in RepresentativeRequests");
    }

    @Test
    void everyRepresentativeRequestIsAnsweredByTheBrokersAtEveryVersionTheyServe() {
        // Given: the representatives, also of keys the proxy does not advertise yet, and what a broker serves
        KafkaCluster cluster = KAFKA.cluster();
        try (ApiConnections connections = ApiConnections.directOnly(cluster)) {
            var served = ((ApiVersionsResponseData) connections.direct(DirectTarget.anyBroker(), new ApiVersionsRequestData()
                    .setClientSoftwareName("every-api-it").setClientSoftwareVersion("1.0"), API_VERSIONS_VERSION)
                    .answer().data()).apiKeys();
            List<String> unanswered = new ArrayList<>();
            for (var entry : RepresentativeRequests.all().entrySet()) {
                var range = served.find(entry.getKey().id);
                if (range == null) {
                    unanswered.add(entry.getKey() + ": the brokers do not serve it");
                    continue;
                }
                // Brokers still advertise Produce v0-2 for old clients but refuse them; kafka-clients cannot write them
                short oldest = (short) Math.max(range.minVersion(), entry.getKey().oldestVersion());
                for (short version = oldest; version <= range.maxVersion(); version++) {
                    // When: each version goes directly to the broker that would answer it
                    var call = entry.getValue().make(version, state);
                    var outcome = connections.direct(call.direct(), call.body(), version);
                    LOGGER.info("every-api direct {} v{}: {}", entry.getKey(), version,
                            outcome.answered() ? outcome.answer().errorCounts() : outcome.failure());
                    // Then: the broker takes it (errors are fine: a representative need not succeed)
                    if (!outcome.answered()) {
                        unanswered.add(entry.getKey() + " v" + version + ": " + outcome.failure());
                    }
                }
            }
            assertEquals(List.of(), unanswered, "representative requests the brokers do not answer");
        }
    }

    /**
     * Every version of every key in each advertise mode with the topology from the brokers; with
     * the topology from etcd, which changes where a request goes but not how a version is
     * encoded, the oldest and newest version of each key (the suite's time budget: all six pairs at
     * every version took 164 s).
     */
    @ParameterizedTest(name = "topology from {0}, advertise mode {1}, {2} versions")
    @CsvSource({"kafka, single, every", "kafka, brokers, every", "kafka, ports, every",
            "etcd, single, end", "etcd, brokers, end", "etcd, ports, end"})
    void everyAdvertisedApiAtEveryVersionAnswersAsTheBrokerDoes(String source, String mode, String versions) {
        KafkaCluster cluster = KAFKA.cluster();
        try (RunningProxy proxy = source.equals("etcd") ? RunningProxy.startOnEtcd(cluster, mode, etcd.endpoint())
                        : RunningProxy.start(cluster, mode);
                ApiConnections connections = ApiConnections.withProxy(cluster, proxy.port())) {
            // Given: what the proxy advertises
            List<ApiVersionsResponseData.ApiVersion> advertised = advertised(connections);

            // When: each key at each version is asked through the proxy and directly
            List<String> failures = new ArrayList<>();
            int pairs = 0;
            for (ApiVersionsResponseData.ApiVersion range : advertised) {
                if (!ApiKeys.hasId(range.apiKey())) {
                    failures.add("key " + range.apiKey() + ": advertised, but kafka-clients does not know it");
                    continue;
                }
                ApiKeys key = ApiKeys.forId(range.apiKey());
                var representative = RepresentativeRequests.of(key);
                if (representative.isEmpty()) {
                    failures.add(key + ": advertised, but RepresentativeRequests has no request for it: add one");
                    continue;
                }
                for (short version = range.minVersion(); version <= range.maxVersion(); version++) {
                    boolean endVersion = version == range.minVersion() || version == range.maxVersion();
                    if (versions.equals("end") && !endVersion) {
                        continue;
                    }
                    pairs++;
                    String failure = compareSettled(mode, key, version, representative.get(), connections);
                    LOGGER.info("every-api {}/{} {} v{}: {}", source, mode, key, version, failure == null ? "PASS" : "FAIL " + failure);
                    if (failure != null) {
                        failures.add(key + " v" + version + ": " + failure);
                    }
                }
            }

            // Then
            if (!failures.isEmpty()) {
                fail(failures.size() + " of " + pairs + " (key, version) pairs differ through the proxy, topology from "
                        + source + ", " + mode + " mode:\n" + String.join("\n", failures));
            }
        }
    }

    @ParameterizedTest(name = "advertise mode {0}")
    @ValueSource(strings = {"single", "brokers", "ports"})
    void keysTheProxyDoesNotAdvertiseNeverGetBrokerData(String mode) throws IOException {
        KafkaCluster cluster = KAFKA.cluster();
        try (RunningProxy proxy = RunningProxy.start(cluster, mode);
                ApiConnections connections = ApiConnections.withProxy(cluster, proxy.port())) {
            // Given: keys the brokers serve but the proxy does not advertise, and keys nobody knows
            Set<Short> advertised = advertised(connections).stream().map(ApiVersionsResponseData.ApiVersion::apiKey)
                    .collect(Collectors.toSet());
            List<String> failures = new ArrayList<>();

            // When / Then: each is refused, never answered with what a broker knows
            for (Map.Entry<ApiKeys, ApiMessage> candidate : UNADVERTISED_CANDIDATES.entrySet()) {
                ApiKeys key = candidate.getKey();
                if (advertised.contains(key.id)) {
                    continue;
                }
                var outcome = connections.viaProxy(candidate.getValue(), key.latestVersion());
                String failure = refusalProblem(outcome, key, connections.brokerPorts());
                LOGGER.info("every-api {} unadvertised {}: {}", mode, key, failure == null ? "PASS" : "FAIL " + failure);
                if (failure != null) {
                    failures.add(key + ": " + failure);
                }
            }
            for (int id : UNKNOWN_KEY_IDS) {
                String answer = unknownKeyAnswer(proxy.port(), id);
                LOGGER.info("every-api {} unknown key {}: {}", mode, id, answer);
                if (!answer.equals("closed")) {
                    failures.add("key id " + id + ": " + answer + ", expected the connection to close");
                }
            }
            assertTrue(failures.isEmpty(), "in " + mode + " mode:\n" + String.join("\n", failures));
        }
    }

    /** {@link #compare}, asked again until the pair agrees for the keys of {@link #GROUP_STATE_MOVES}. */
    private static String compareSettled(String mode, ApiKeys key, short version,
            RepresentativeRequests.Representative representative, ApiConnections connections) {
        if (!GROUP_STATE_MOVES.contains(key)) {
            return compare(mode, key, version, representative, connections);
        }
        AtomicReference<String> last = new AtomicReference<>();
        try {
            Eventually.await(READY, key + " v" + version + " to answer alike through the proxy and direct", () -> {
                last.set(compare(mode, key, version, representative, connections));
                return last.get() == null;
            });
        } catch (AssertionError stillDiffers) {
            // The last difference is the failure reported.
        }
        return last.get();
    }

    /** Null when the proxy's answer matches the broker's, else what differs. */
    private static String compare(String mode, ApiKeys key, short version, RepresentativeRequests.Representative representative,
            ApiConnections connections) {
        RepresentativeRequests.Call throughProxy;
        RepresentativeRequests.Call direct;
        try {
            throughProxy = representative.make(version, state);
            direct = representative.make(version, state);
        } catch (RuntimeException e) {
            return "cannot build the representative request: " + e;
        }
        var proxied = connections.viaProxy(throughProxy.body(), version);
        var straight = connections.direct(direct.direct(), direct.body(), version);
        if (!straight.answered()) {
            return "no direct answer to compare with (" + straight.failure() + ")";
        }
        if (!proxied.answered()) {
            return "no answer through the proxy (" + proxied.failure() + "); direct: "
                    + straight.answer().errorCounts();
        }
        Map<Errors, Integer> directErrors = straight.answer().errorCounts();
        Map<Errors, Integer> proxyErrors = KnownDifferences.asTheBrokerWouldSay(key, mode, proxied.answer().errorCounts());
        if (!directErrors.equals(proxyErrors)) {
            return "errors " + proxied.answer().errorCounts() + " through the proxy, " + directErrors + " direct";
        }
        JsonNode proxyJson = AnswerShape.json(proxied.answer().data(), version);
        JsonNode directJson = AnswerShape.json(straight.answer().data(), version);
        List<Integer> leaked = AnswerShape.portsIn(proxyJson, connections.brokerPorts());
        if (!leaked.isEmpty()) {
            return "the answer names broker port(s) " + leaked + ": " + abbreviate(proxyJson.toString());
        }
        String badIds = unexpectedNodeIds(mode, key, proxyJson);
        if (badIds != null) {
            return badIds;
        }
        var skipped = KnownDifferences.skippedPaths(key, mode);
        String proxyShape = AnswerShape.of(proxyJson, skipped);
        String directShape = AnswerShape.of(directJson, skipped);
        if (!proxyShape.equals(directShape)) {
            return "shape differs:\n    proxy:  " + around(proxyShape, directShape) + "\n    direct: "
                    + around(directShape, proxyShape);
        }
        return null;
    }

    private static String unexpectedNodeIds(String mode, ApiKeys key, JsonNode proxyJson) {
        if (KnownDifferences.NAME_CONTROLLERS.contains(key)) {
            return null;
        }
        List<Integer> visible = mode.equals("single") ? List.of(0) : KAFKA.cluster().brokerIds();
        List<String> wrong = AnswerShape.nodeIds(proxyJson).stream().filter(idAt -> {
            long id = Long.parseLong(idAt.substring(idAt.lastIndexOf('=') + 1));
            return id != -1 && !visible.contains((int) id);
        }).toList();
        return wrong.isEmpty() ? null : "node ids a client may not see in " + mode + " mode (only " + visible + "): " + wrong;
    }

    /**
     * Null when the proxy refused the key as it refuses every key it does not advertise: the
     * connection closed without an answer (a broker does the same), so no broker data can leak.
     */
    private static String refusalProblem(ApiConnections.Outcome outcome, ApiKeys key, List<Integer> brokerPorts) {
        if (!outcome.answered()) {
            return null;
        }
        JsonNode json = AnswerShape.json(outcome.answer().data(), key.latestVersion());
        return "answered " + outcome.answer().errorCounts() + " (ports of brokers in it: "
                + AnswerShape.portsIn(json, brokerPorts) + "), expected the connection to close: "
                + abbreviate(json.toString());
    }

    /** "closed", "answered", or "no answer" for a request whose key id no broker knows. */
    private static String unknownKeyAnswer(int port, int keyId) throws IOException {
        byte[] clientId = "every-api-it".getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) READY.toMillis());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            // A v1 request header (key, version, correlation id, client id) and no body
            out.writeInt(2 + 2 + 4 + 2 + clientId.length);
            out.writeShort(keyId);
            out.writeShort(0);
            out.writeInt(1);
            out.writeShort(clientId.length);
            out.write(clientId);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            try {
                in.readInt();
                return "answered";
            } catch (EOFException | SocketException closed) {
                return "closed";
            } catch (SocketTimeoutException silent) {
                return "no answer";
            }
        }
    }

    private static List<ApiVersionsResponseData.ApiVersion> advertised(ApiConnections connections) {
        List<ApiVersionsResponseData.ApiVersion> advertised = new ArrayList<>();
        Eventually.await(READY, "the proxy to advertise the brokers' APIs", () -> {
            var outcome = connections.viaProxy(new ApiVersionsRequestData().setClientSoftwareName("every-api-it")
                    .setClientSoftwareVersion("1.0"), API_VERSIONS_VERSION);
            if (!outcome.answered()) {
                throw new AssertionError("no ApiVersions answer: " + outcome.failure());
            }
            var keys = ((ApiVersionsResponseData) outcome.answer().data()).apiKeys();
            if (keys.find(ApiKeys.METADATA.id) == null) {
                throw new AssertionError("Metadata not advertised yet");
            }
            advertised.clear();
            keys.forEach(k -> advertised.add(k.duplicate()));
        });
        advertised.sort(Comparator.comparingInt(ApiVersionsResponseData.ApiVersion::apiKey));
        return advertised;
    }

    /** The two shapes around where they first differ. */
    private static String around(String shape, String other) {
        int at = 0;
        while (at < shape.length() && at < other.length() && shape.charAt(at) == other.charAt(at)) {
            at++;
        }
        int from = Math.max(0, at - 120);
        return (from > 0 ? "..." : "") + shape.substring(from, Math.min(shape.length(), at + 200))
                + (at + 200 < shape.length() ? "..." : "");
    }

    private static String abbreviate(String text) {
        return text.length() <= 400 ? text : text.substring(0, 400) + "...";
    }
}
