package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.TestOAuthServer;

/**
 * The proxy authenticates to the brokers with OAUTHBEARER end to end: it gets its token from a
 * token endpoint by the client-credentials grant, and brokers whose SASL listener validates
 * tokens against the test's JSON Web Key Set (kafka-clients' {@code
 * OAuthBearerValidatorCallbackHandler}) accept it. The tokens live {@link #TOKEN_LIFETIME}, and a
 * broker ends each session when its token expires (KIP-368), so the proxy must retire its channels
 * and fetch new tokens in time: a producer that never retries keeps going over several lifetimes.
 */
class BackendOAuthBearerIT {
    private static final Duration TOKEN_LIFETIME = Duration.ofSeconds(10);
    private static final String CLIENT_ID = "kafscale-proxy";
    private static final String CLIENT_SECRET = "proxy-secret";
    private static TestOAuthServer oauth;
    private static KafkaCluster cluster;

    @BeforeAll
    static void startBrokersAndTokenEndpoint() {
        oauth = TestOAuthServer.start(CLIENT_ID, CLIENT_SECRET, TOKEN_LIFETIME);
        cluster = KafkaCluster.start(1, BrokerSecurity.saslPlaintext().withOAuthBearer(oauth.jwksUrl()));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (oauth != null) {
            oauth.close();
        }
    }

    @Test
    void aJavaClientProducesAndConsumesAsAGroupThroughAProxyWithAnOAuthTokenFromTheEndpoint() throws Exception {
        // Given
        cluster.createTopic("oauth-orders", 2);
        try (RunningProxy proxy = RunningProxy.start(cluster, "single", settings())) {
            // When
            Map<Integer, List<String>> sent = RecordRoundTrip.produce(proxy.bootstrap(), "oauth-orders", 2, 20);
            Map<Integer, List<String>> received = RecordRoundTrip.consumeAsGroup(proxy.bootstrap(), "oauth-orders",
                    "oauth-readers", 20);
            // Then: every record came back, and the brokers were reached with granted tokens
            assertEquals(sent, received);
            assertTrue(oauth.grants() >= 1, "tokens granted: " + oauth.grants());
        }
    }

    @Test
    void aProducerThatNeverRetriesKeepsGoingWhileTokensExpireUnderIt() throws Exception {
        // Given
        cluster.createTopic("oauth-expiring", 1);
        try (RunningProxy proxy = RunningProxy.start(cluster, "single", settings());
             KafkaProducer<String, String> producer = new KafkaProducer<>(
                     RecordRoundTrip.noRetriesProducerProperties(proxy.bootstrap()))) {
            int grantsBefore = oauth.grants();
            // When: it produces, one record at a time, for three token lifetimes
            long end = System.nanoTime() + 3 * TOKEN_LIFETIME.toNanos();
            List<String> sent = new ArrayList<>();
            while (System.nanoTime() < end) {
                String value = "v" + sent.size();
                producer.send(new ProducerRecord<>("oauth-expiring", "k", value)).get(10, TimeUnit.SECONDS);
                sent.add(value);
            }
            // Then: every send succeeded (get() threw for none), all records are in the log, and the
            // proxy fetched new tokens as the old ones aged
            long logged = cluster.admin().listOffsets(Map.of(new TopicPartition("oauth-expiring", 0), OffsetSpec.latest()))
                    .all().get().values().iterator().next().offset();
            assertEquals(sent.size(), logged);
            assertTrue(oauth.grants() - grantsBefore >= 2, "tokens granted while producing: "
                    + (oauth.grants() - grantsBefore));
        }
    }

    private static Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_MECHANISM", "OAUTHBEARER");
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL", oauth.tokenUrl().toString());
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_ID", CLIENT_ID);
        settings.put("KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET", CLIENT_SECRET);
        return settings;
    }
}
