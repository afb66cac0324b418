package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.routing.apis.Apis;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link EveryApiIT} for a tenant: through a proxy with virtual clusters, alice (team-a) is
 * offered exactly the keys the API registry isolates, each of them answers her representative
 * request without naming anything of another tenant or of the real cluster, and each key the
 * registry refuses to tenants closes her connection, though a broker would answer it.
 */
class TenantApisIT {
    private static final Logger LOGGER = LoggerFactory.getLogger(TenantApisIT.class);
    private static final short API_VERSIONS_VERSION = 3;
    /** What no answer to alice may hold: bob's names, the real cluster's internal topics. */
    private static final List<String> NOT_HERS = List.of("secret", "__consumer_offsets", "__transaction_state");

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @TempDir
    static Path dir;
    private static ApiTestState state;
    private static RunningProxy proxy;
    private static String realClusterId;

    @BeforeAll
    static void start() throws Exception {
        state = ApiTestState.create(KAFKA.cluster());
        // Bob's topic, group and transactional id: a listing that leaked would name them
        KAFKA.cluster().admin().createTopics(List.of(new NewTopic("u.secret", 1, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
        ApiTestState.commitOffset(KAFKA.cluster(), "u.secret-group");
        try (var bobs = ApiTestState.transactionalProducer(KAFKA.cluster().bootstrapServers(), "u.secret-txn")) {
            bobs.initTransactions();
        }
        realClusterId = KAFKA.cluster().admin().describeCluster().clusterId().get(10, TimeUnit.SECONDS);
        proxy = RunningProxy.start(KAFKA.cluster(), "single", ScramUsers.gatewaySettings(dir, "PLAIN",
                List.of("alice", "bob"), """
                virtualClusters:
                  - name: team-a
                    principals: ["User:alice"]
                    topicPrefix: "t."
                    groupPrefix: "t."
                    transactionalIdPrefix: "t."
                  - name: team-b
                    principals: ["User:bob"]
                    topicPrefix: "u."
                    groupPrefix: "u."
                    transactionalIdPrefix: "u."
                """));
        Eventually.await(Duration.ofSeconds(15), "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (state != null) {
            state.close();
        }
    }

    @Test
    void aTenantIsOfferedTheIsolatedKeysAnsweredWithinItsOwnNamesAndClosedOnTheRest() throws Exception {
        ApiCatalog catalog = Apis.catalog();
        Set<ApiKeys> isolated = new TreeSet<>();
        Set<ApiKeys> refused = new TreeSet<>();
        for (ApiSpec spec : catalog.all().values()) {
            if (spec.served()) {
                (catalog.isolationOf(spec.api()).refuses() ? refused : isolated).add(spec.api());
            }
        }

        // Given: what alice is offered once she has authenticated
        Map<ApiKeys, Short> offered = new HashMap<>();
        try (RawKafkaConnection alice = authenticated("alice")) {
            ApiVersionsResponseData versions = alice.send(new ApiVersionsRequestData()
                    .setClientSoftwareName("tenant-apis-it").setClientSoftwareVersion("1.0"), API_VERSIONS_VERSION);
            versions.apiKeys().forEach(k -> offered.put(ApiKeys.forId(k.apiKey()), k.maxVersion()));
        }
        Set<ApiKeys> offeredApis = new TreeSet<>(offered.keySet());
        offeredApis.removeAll(Set.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE));
        // Then it is exactly what the registry isolates
        assertEquals(isolated, offeredApis, "keys offered to a tenant");

        // When each offered key is sent at its highest version; and each refused one at the broker's
        List<String> failures = new ArrayList<>();
        for (ApiKeys key : isolated) {
            String failure = answeredWithinHerNames(key, offered.get(key));
            LOGGER.info("tenant-apis {} v{}: {}", key, offered.get(key), failure == null ? "PASS" : "FAIL " + failure);
            if (failure != null) {
                failures.add(key + " v" + offered.get(key) + ": " + failure);
            }
        }
        for (ApiKeys key : refused) {
            if (RepresentativeRequests.of(key).isEmpty()) {
                continue;
            }
            String failure = closed(key, key.latestVersion());
            LOGGER.info("tenant-apis refused {}: {}", key, failure == null ? "PASS" : "FAIL " + failure);
            if (failure != null) {
                failures.add(key + " (refused to tenants): " + failure);
            }
        }

        // Then every isolated key answered within her names, and every refused one closed her connection
        if (!failures.isEmpty()) {
            fail(failures.size() + " keys misbehave for a tenant:\n" + String.join("\n", failures));
        }
    }

    /** Null when alice's representative request of {@code key} is answered with nothing not hers; else why not. */
    private static String answeredWithinHerNames(ApiKeys key, short version) throws Exception {
        var representative = RepresentativeRequests.of(key);
        if (representative.isEmpty()) {
            return "offered, but RepresentativeRequests has no request for it";
        }
        try (RawKafkaConnection alice = authenticated("alice")) {
            RequestHeader header = alice.write(representative.get().make(version, state).body(), version);
            AbstractResponse answer;
            try {
                answer = alice.read(header);
            } catch (IOException e) {
                return "no answer (" + e + ")";
            }
            String text = answer.data().toString();
            for (String leak : NOT_HERS) {
                if (text.contains(leak)) {
                    return "the answer names '" + leak + "': " + text;
                }
            }
            if (text.contains(realClusterId)) {
                return "the answer carries the real cluster's id: " + text;
            }
            return null;
        }
    }

    /** Null when alice's connection is closed on {@code key}'s representative request; else what happened. */
    private static String closed(ApiKeys key, short version) throws Exception {
        try (RawKafkaConnection alice = authenticated("alice")) {
            RequestHeader header = alice.write(RepresentativeRequests.of(key).get().make(version, state).body(), version);
            try {
                AbstractResponse answer = alice.read(header);
                return "answered: " + answer.data();
            } catch (IOException closed) {
                return null;
            }
        }
    }

    /** A raw connection to the proxy that has authenticated as {@code user} with SASL/PLAIN. */
    private static RawKafkaConnection authenticated(String user) throws IOException {
        RawKafkaConnection connection = new RawKafkaConnection(proxy.port(), "tenant-apis-it");
        SaslHandshakeResponseData handshake = connection.send(new SaslHandshakeRequestData().setMechanism("PLAIN"),
                (short) 1);
        assertEquals(Errors.NONE.code(), handshake.errorCode(), "handshake: " + handshake);
        byte[] token = ("\0" + user + "\0" + user + "-secret").getBytes(StandardCharsets.UTF_8);
        SaslAuthenticateResponseData authenticated = connection.send(new SaslAuthenticateRequestData()
                .setAuthBytes(token), (short) 2);
        assertEquals(Errors.NONE.code(), authenticated.errorCode(), "authentication: " + authenticated);
        return connection;
    }
}
