package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.security.auth.callback.Callback;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.DebianPython;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaClusterExtension;
import org.kafscale.proxy.testkit.Kcat;
import org.kafscale.proxy.testkit.Librdkafka;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * SASL terminated at the proxy (plaintext brokers behind it): real Java clients, kcat and
 * confluent-kafka authenticate with PLAIN, SCRAM and OAUTHBEARER (tokens signed by the test, keys
 * served by a JWKS endpoint in the test; kcat fetches its tokens from the test's token endpoint)
 * and move records, kcat and confluent-kafka on the librdkafka of scripts/ensure-librdkafka.sh; wrong credentials, bad tokens,
 * unknown mechanisms and requests before authentication fail at once with nothing routed; and a
 * client re-authenticates on its connection as the session runs out (KIP-368).
 */
class SaslListenerIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    private static final String USER = "alice";
    private static final String PASSWORD = "alice-secret";
    private static final String AUDIENCE = "kafscale-proxy";
    private static final String ISSUER = "https://issuer.test";
    private static final Duration FAILURE_WITHIN = Duration.ofSeconds(1);

    private static final String OIDC_CLIENT_ID = "kcat";
    private static final String OIDC_CLIENT_SECRET = "kcat-secret";

    @TempDir
    static Path dir;
    private static Path credentials;
    /** The test's identity provider: the JWKS the proxy validates with, and a client-credentials token endpoint. */
    private static HttpServer identityProvider;
    private static final AtomicInteger tokensIssued = new AtomicInteger();
    private static RsaJsonWebKey signingKey;

    @BeforeAll
    static void credentialsAndIdentityProvider() throws Exception {
        credentials = dir.resolve("sasl-users");
        List<String> lines = new ArrayList<>();
        for (ScramMechanism mechanism : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
            lines.add(USER + " " + mechanism.mechanismName() + " " + ScramCredentialUtils.credentialToString(
                    new ScramFormatter(mechanism).generateCredential(PASSWORD, 4096)));
        }
        Files.write(credentials, lines);
        signingKey = RsaJwkGenerator.generateJwk(2048);
        signingKey.setKeyId("test-key");
        String keySet = new JsonWebKeySet(signingKey).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
        identityProvider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        identityProvider.createContext("/jwks", exchange -> respond(exchange, 200, keySet));
        identityProvider.createContext("/token", SaslListenerIT::issueToken);
        identityProvider.start();
    }

    @AfterAll
    static void stopIdentityProvider() {
        identityProvider.stop(0);
    }

    private static String identityProviderUrl(String path) {
        return "http://127.0.0.1:" + identityProvider.getAddress().getPort() + path;
    }

    /** OAuth 2 client credentials (RFC 6749 4.4): a fresh token for the right client id and secret. */
    private static void issueToken(HttpExchange exchange) throws IOException {
        String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String expected = "Basic " + Base64.getEncoder().encodeToString(
                (OIDC_CLIENT_ID + ":" + OIDC_CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
        if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))
                || !form.contains("grant_type=client_credentials")) {
            respond(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        String token;
        try {
            token = token(USER, AUDIENCE, 300);
        } catch (Exception e) {
            respond(exchange, 500, "{\"error\":\"server_error\"}");
            return;
        }
        tokensIssued.incrementAndGet();
        respond(exchange, 200, "{\"access_token\":\"" + token + "\",\"token_type\":\"bearer\",\"expires_in\":300}");
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"})
    void javaProducerAndGroupConsumerMoveRecordsAfterAuthenticating(String mechanism) throws Exception {
        // Given
        String topic = "sasl-" + mechanism.toLowerCase();
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = startProxy("PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER", Map.of())) {
            Properties client = clientProperties(proxy, mechanism, USER, PASSWORD, token(USER, AUDIENCE, 300));
            // When
            List<String> sent = produce(client, topic, 200);
            List<String> received = consumeAsGroup(client, topic, "group-" + topic, sent.size());
            // Then
            assertEquals(Set.copyOf(sent), Set.copyOf(received));
            String metrics = proxy.healthBody("/metrics");
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_sasl_authentications_total{mechanism=\""
                    + mechanism + "\",outcome=\"succeeded\"") >= 2, metrics);
        }
    }

    @Test
    void inPortsModeEveryBrokerPortRequiresAndAcceptsSasl() throws Exception {
        // Given: clients bootstrap on the proxy's port, then use each broker's own port
        String topic = "sasl-ports";
        KAFKA.cluster().createTopic(topic, 2);
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", "ports", Map.of())) {
            Properties client = clientProperties(proxy, "SCRAM-SHA-512", USER, PASSWORD, null);
            // When
            List<String> sent = produce(client, topic, 50);
            List<String> received = consumeAsGroup(client, topic, "group-" + topic, sent.size());
            // Then: records flow (the clients authenticated on the broker port as on the bootstrap port)
            assertEquals(Set.copyOf(sent), Set.copyOf(received));
            int brokerPort = proxy.runtime().brokerPortAddresses().values().iterator().next().getPort();
            try (Socket socket = new Socket("127.0.0.1", brokerPort)) {
                socket.setSoTimeout((int) FAILURE_WITHIN.toMillis());
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                DataInputStream in = new DataInputStream(socket.getInputStream());
                assertThrows(java.io.EOFException.class, () -> exchange(out, in,
                        new MetadataRequest(new MetadataRequestData().setTopics(List.of()), (short) 12), 1),
                        "a broker's port closes on Metadata before authentication too");
            }
        }
    }

    @Test
    void aUserAddedToTheCredentialsFileCanLogInWithoutARestart() throws Exception {
        // Given a running proxy whose file knows only alice
        Path rotated = dir.resolve("rotated-users");
        Files.copy(credentials, rotated, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", Map.of("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE",
                rotated.toString()))) {
            assertThrows(ExecutionException.class, () -> describeCluster(proxy, "bob", "bob-secret"));

            // When the secret is rotated with a line for bob
            List<String> lines = new ArrayList<>(Files.readAllLines(rotated));
            lines.add("bob SCRAM-SHA-512 " + ScramCredentialUtils.credentialToString(
                    new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential("bob-secret", 4096)));
            Path next = dir.resolve("rotated-users.next");
            Files.write(next, lines);
            Files.move(next, rotated, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);

            // Then bob logs in
            assertTrue(!describeCluster(proxy, "bob", "bob-secret").isBlank(), "bob is told the cluster id");
        }
    }

    /**
     * The readiness probe logs in to the SASL listener with its own login (SCRAM-SHA-512, even on a
     * listener that enables only PLAIN or only OAUTHBEARER) and proves the read path with a real
     * Fetch through it, not only a broker's ApiVersions.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"PLAIN", "SCRAM-SHA-256", "OAUTHBEARER", "PLAIN,SCRAM-SHA-512"})
    void readyzProvesTheReadPathThroughTheSaslListener(String mechanisms) throws Exception {
        // Given a probe topic with a record, produced by a client of the listener
        String topic = "probe-sasl-" + mechanisms.toLowerCase().replace(',', '-');
        KAFKA.cluster().createTopic(topic, 1);
        String clientMechanism = mechanisms.split(",")[0];
        try (RunningProxy proxy = startProxy(mechanisms, Map.of(ProxyConfig.READY_PROBE_TOPIC, topic,
                ProxyConfig.READY_PROBE_INTERVAL_MS, "300"))) {
            produce(clientProperties(proxy, clientMechanism, USER, PASSWORD, token(USER, AUDIENCE, 300)), topic, 1);

            // Then /readyz reports the Fetch through the listener
            Eventually.await(Duration.ofSeconds(30), "the probe to fetch through the SASL listener",
                    () -> proxy.healthBody("/readyz").contains("read path proven: fetched 1 records from " + topic));
            assertTrue(RunningProxy.metricValue(proxy.healthBody("/metrics"),
                    "kafscale_proxy_sasl_authentications_total{mechanism=\"SCRAM-SHA-512\",outcome=\"succeeded\"") >= 1);
        }
    }

    /**
     * On a TLS listener that requires client certificates and SASL, the probe presents the
     * listener's own certificate (signed by the client CA here) and then logs in.
     */
    @Tag(RunningProxy.TLS_TAG)
    @Test
    void readyzProvesTheReadPathThroughAListenerRequiringClientCertificatesAndSasl() throws Exception {
        // Given a probe topic with a record (written straight to the broker)
        String topic = "probe-sasl-mtls";
        KAFKA.cluster().createTopic(topic, 1);
        Properties direct = new Properties();
        direct.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().bootstrapServers());
        produce(direct, topic, 1);
        TestCertificates listener = TestCertificates.create(dir.resolve("mtls-listener"));
        Map<String, String> mtls = Map.of(ProxyConfig.READY_PROBE_TOPIC, topic,
                ProxyConfig.READY_PROBE_INTERVAL_MS, "300",
                "KAFSCALE_PROXY_TLS_ENABLED", "true",
                "KAFSCALE_PROXY_TLS_CERT_FILE", listener.server().certificateFile().toString(),
                "KAFSCALE_PROXY_TLS_KEY_FILE", listener.server().keyFile().toString(),
                "KAFSCALE_PROXY_TLS_CLIENT_CA_FILE", listener.caFile().toString(),
                "KAFSCALE_PROXY_TLS_REQUIRE_CLIENT_CERT", "true");
        // When
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", mtls)) {
            // Then
            Eventually.await(Duration.ofSeconds(30), "the probe to fetch through the mTLS and SASL listener",
                    () -> proxy.healthBody("/readyz").contains("read path proven: fetched 1 records from " + topic));
        }
    }

    @Test
    void aLoginWithTheProbesUserNameFromAnotherConnectionFails() throws Exception {
        // Given a SCRAM listener, and the name its readiness probe logs in as
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", Map.of())) {
            String probe = proxy.runtime().probeUsername().orElseThrow();
            // When a client logs in with that name, Then it is refused like any unknown user
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> describeCluster(proxy, probe, "a-guess"));
            assertInstanceOf(SaslAuthenticationException.class, refused.getCause(), String.valueOf(refused.getCause()));
        }
        // And on a listener that enables only OAUTHBEARER, the probe's mechanism is not offered to clients
        try (RunningProxy proxy = startProxy("OAUTHBEARER", Map.of())) {
            String probe = proxy.runtime().probeUsername().orElseThrow();
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> describeCluster(proxy, probe, "a-guess"));
            assertInstanceOf(UnsupportedSaslMechanismException.class, refused.getCause(),
                    String.valueOf(refused.getCause()));
        }
    }

    private static String describeCluster(RunningProxy proxy, String user, String password) throws Exception {
        try (Admin admin = Admin.create(clientProperties(proxy, "SCRAM-SHA-512", user, password, null))) {
            return admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void wrongPasswordFailsAtOnceWithNothingRouted() throws Exception {
        assertRefused("PLAIN", "PLAIN", USER, "wrong", null, SaslAuthenticationException.class);
        assertRefused("SCRAM-SHA-512", "SCRAM-SHA-512", USER, "wrong", null, SaslAuthenticationException.class);
    }

    @Test
    void unknownUserFailsAtOnceWithNothingRouted() throws Exception {
        assertRefused("SCRAM-SHA-256", "SCRAM-SHA-256", "mallory", PASSWORD, null, SaslAuthenticationException.class);
    }

    @Test
    void expiredTokenFailsAtOnceWithNothingRouted() throws Exception {
        assertRefused("OAUTHBEARER", "OAUTHBEARER", USER, null, token(USER, AUDIENCE, -600),
                SaslAuthenticationException.class);
    }

    @Test
    void tokenForAnotherAudienceFailsAtOnceWithNothingRouted() throws Exception {
        assertRefused("OAUTHBEARER", "OAUTHBEARER", USER, null, token(USER, "another-service", 300),
                SaslAuthenticationException.class);
    }

    @Test
    void mechanismTheListenerDoesNotEnableFailsAtOnceWithNothingRouted() throws Exception {
        assertRefused("PLAIN", "SCRAM-SHA-512", USER, PASSWORD, null, UnsupportedSaslMechanismException.class);
    }

    @Test
    void metadataBeforeAuthenticationClosesTheConnection() throws Exception {
        try (RunningProxy proxy = startProbedOnce("PLAIN");
             Socket socket = new Socket("127.0.0.1", proxy.port())) {
            // Given
            Map<String, Double> before = routed(proxy);
            socket.setSoTimeout((int) FAILURE_WITHIN.toMillis());
            short version = 12;
            ByteBuffer request = new MetadataRequest(new MetadataRequestData().setTopics(null), version)
                    .serializeWithHeader(new RequestHeader(ApiKeys.METADATA, version, "raw-client", 1));
            // When
            OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(4).putInt(request.remaining()).array());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            InputStream in = socket.getInputStream();
            // Then: closed without an answer (a read past the timeout would throw instead)
            assertEquals(-1, in.read(), "the proxy closes the connection");
            assertNoBrokerReached(proxy, before);
        }
    }

    @Test
    void aSessionThatEndsWithoutReauthenticationClosesAtTheNextRequest() throws Exception {
        // Given: a client that authenticates once (SaslAuthenticate v2) and never again, sessions of 3 s
        try (RunningProxy proxy = startProxy("PLAIN", Map.of("KAFSCALE_PROXY_SASL_MAX_REAUTH_MS", "3000"));
             Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            SaslHandshakeResponse handshake = (SaslHandshakeResponse) exchange(out, in,
                    new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1),
                    1);
            assertEquals(Errors.NONE, handshake.error());
            byte[] plain = ("\0" + USER + "\0" + PASSWORD).getBytes(StandardCharsets.UTF_8);
            SaslAuthenticateResponse authenticated = (SaslAuthenticateResponse) exchange(out, in,
                    new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(plain))
                            .build((short) 2), 2);
            assertEquals(Errors.NONE, authenticated.error());
            assertTrue(authenticated.sessionLifetimeMs() > 0 && authenticated.sessionLifetimeMs() <= 3000,
                    "session lifetime " + authenticated.sessionLifetimeMs());

            // When it keeps asking for Metadata; Then the answers stop, with a close, once the session is over
            int[] answered = {0};
            Eventually.await(Duration.ofSeconds(15), "the connection closes after the session", () -> {
                try {
                    exchange(out, in, new MetadataRequest(new MetadataRequestData().setTopics(List.of()), (short) 12),
                            10 + answered[0]);
                    answered[0]++;
                    return false;
                } catch (java.io.EOFException | java.net.SocketException e) {
                    return true;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertTrue(answered[0] >= 1, "Metadata is answered while the session lasts");
        }
    }

    /** Sends one request and reads its answer; an {@link java.io.EOFException} when the proxy closed instead. */
    private static AbstractResponse exchange(DataOutputStream out, DataInputStream in, AbstractRequest request,
                                             int correlationId) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client", correlationId);
        ByteBuffer bytes = request.serializeWithHeader(header);
        out.writeInt(bytes.remaining());
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        out.flush();
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
    }

    @Test
    void producerKeepsProducingAcrossReauthentications() throws Exception {
        // Given: sessions of 2 s
        String topic = "sasl-reauth";
        KAFKA.cluster().createTopic(topic, 1);
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", Map.of("KAFSCALE_PROXY_SASL_MAX_REAUTH_MS", "2000"))) {
            Properties client = clientProperties(proxy, "SCRAM-SHA-512", USER, PASSWORD, null);
            client.putAll(RecordRoundTrip.idempotentProducerProperties(proxy.bootstrap()));
            int sent = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(7);
            // When: one record after another for longer than three sessions
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(client)) {
                while (System.nanoTime() < end) {
                    producer.send(new ProducerRecord<>(topic, "k", "v" + sent)).get(10, TimeUnit.SECONDS);
                    sent++;
                }
            }
            // Then
            String metrics = proxy.healthBody("/metrics");
            assertTrue(RunningProxy.metricValue(metrics, "kafscale_proxy_sasl_authentications_total{mechanism="
                    + "\"SCRAM-SHA-512\",outcome=\"reauthenticated\"") >= 2, metrics);
            assertTrue(sent > 10, "records sent: " + sent);
        }
    }

    @Test
    void kcatProducesAndConsumesWithPlain() {
        String topic = "sasl-kcat-plain";
        KAFKA.cluster().createTopic(topic, 1);
        try (RunningProxy proxy = startProxy("PLAIN,SCRAM-SHA-512", Map.of())) {
            assertKcatRoundTrip(proxy, topic, kcatSasl("PLAIN"));
        }
    }

    @Test
    void kcatProducesAndConsumesWithScram() {
        Version version = Version.of(Kcat.banner(Kcat.Library.PREFERRED).version());
        assumeTrue(LIBRDKAFKA_SCRAM_FIXED.compareTo(version) <= 0, "kcat's librdkafka " + version
                + " sends a wrong SCRAM nonce (fixed in 2.6.1); " + Librdkafka.whyAbsent());
        String topic = "sasl-kcat-scram";
        KAFKA.cluster().createTopic(topic, 1);
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", Map.of())) {
            assertKcatRoundTrip(proxy, topic, kcatSasl("SCRAM-SHA-512"));
        }
    }

    /**
     * kcat has no token callback: its librdkafka fetches the token itself, with OIDC client
     * credentials (over libcurl), from the token endpoint the test serves.
     */
    @Test
    void kcatProducesAndConsumesWithOauthbearerFromATokenEndpoint() {
        Kcat.Banner banner = Kcat.banner(Kcat.Library.PREFERRED);
        assumeTrue(banner.features().contains("oidc"), "kcat's librdkafka " + banner.version()
                + " has no OIDC token client (built without libcurl); " + Librdkafka.whyAbsent());
        String topic = "sasl-kcat-oauthbearer";
        KAFKA.cluster().createTopic(topic, 1);
        int issuedBefore = tokensIssued.get();
        try (RunningProxy proxy = startProxy("OAUTHBEARER", Map.of())) {
            assertKcatRoundTrip(proxy, topic, List.of("-X", "security.protocol=sasl_plaintext",
                    "-X", "sasl.mechanisms=OAUTHBEARER", "-X", "sasl.oauthbearer.method=oidc",
                    "-X", "sasl.oauthbearer.client.id=" + OIDC_CLIENT_ID,
                    "-X", "sasl.oauthbearer.client.secret=" + OIDC_CLIENT_SECRET,
                    "-X", "sasl.oauthbearer.token.endpoint.url=" + identityProviderUrl("/token")));
            assertTrue(tokensIssued.get() > issuedBefore, "kcat fetched its tokens from the token endpoint");
        }
    }

    /**
     * librdkafka before 2.6.1 repeats the client nonce in its SCRAM final message; Kafka 4 brokers
     * (whose SCRAM server the proxy runs) refuse it, and so does the proxy: at once and plainly.
     * Debian's kcat on Debian's librdkafka (2.0.2) is such a client.
     */
    @Test
    void kcatWithTheOldLibrdkafkaScramNonceIsRefusedPlainly() {
        Version version = Version.of(Kcat.banner(Kcat.Library.SYSTEM).version());
        assumeTrue(LIBRDKAFKA_SCRAM_FIXED.compareTo(version) > 0, "the system's librdkafka " + version + " has the fix");
        try (RunningProxy proxy = startProbedOnce("SCRAM-SHA-512")) {
            Map<String, Double> before = routed(proxy);
            List<String> args = new ArrayList<>(List.of("-b", proxy.bootstrap(), "-L"));
            args.addAll(kcatSasl("SCRAM-SHA-512"));
            Kcat.Result result = Kcat.run(Kcat.Library.SYSTEM, Duration.ofSeconds(30), null, args);
            assertTrue(!result.succeeded() && result.stderr().contains("SASL authentication error"), result.stderr());
            assertNothingRouted(proxy, before);
        }
    }

    @Test
    void confluentKafkaPythonProducesAndConsumesWithPlain() throws Exception {
        try (RunningProxy proxy = startProxy("PLAIN", Map.of())) {
            assertPythonRoundTrip(proxy, "sasl-python-plain", "PLAIN");
        }
    }

    @Test
    void confluentKafkaPythonProducesAndConsumesWithScram() throws Exception {
        Version version = Version.of(DebianPython.confluentKafkaLibrdkafkaVersion());
        assumeTrue(LIBRDKAFKA_SCRAM_FIXED.compareTo(version) <= 0, "confluent-kafka's librdkafka " + version
                + " sends a wrong SCRAM nonce (fixed in 2.6.1); " + Librdkafka.whyAbsent());
        try (RunningProxy proxy = startProxy("SCRAM-SHA-512", Map.of())) {
            assertPythonRoundTrip(proxy, "sasl-python-scram", "SCRAM-SHA-512");
        }
    }

    /** The token comes from the application's {@code oauth_cb}, here the one the test minted. */
    @Test
    void confluentKafkaPythonProducesAndConsumesWithOauthbearer() throws Exception {
        try (RunningProxy proxy = startProxy("OAUTHBEARER", Map.of())) {
            assertPythonRoundTrip(proxy, "sasl-python-oauthbearer", "OAUTHBEARER");
        }
    }

    /** The first librdkafka whose SCRAM final message Kafka 4's server accepts (confluentinc/librdkafka#4895). */
    private static final Version LIBRDKAFKA_SCRAM_FIXED = Version.of("2.6.1");

    /** A dotted version, compared number by number. */
    private record Version(List<Integer> parts) implements Comparable<Version> {
        static Version of(String text) {
            return new Version(Arrays.stream(text.split("\\.")).map(Integer::valueOf).toList());
        }

        @Override
        public int compareTo(Version other) {
            for (int i = 0; i < Math.max(parts.size(), other.parts.size()); i++) {
                int a = i < parts.size() ? parts.get(i) : 0;
                int b = i < other.parts.size() ? other.parts.get(i) : 0;
                if (a != b) {
                    return Integer.compare(a, b);
                }
            }
            return 0;
        }

        @Override
        public String toString() {
            return parts.stream().map(String::valueOf).collect(Collectors.joining("."));
        }
    }

    private static List<String> kcatSasl(String mechanism) {
        return List.of("-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=" + mechanism,
                "-X", "sasl.username=" + USER, "-X", "sasl.password=" + PASSWORD);
    }

    private static void assertKcatRoundTrip(RunningProxy proxy, String topic, List<String> sasl) {
        List<String> produce = new ArrayList<>(List.of("-b", proxy.bootstrap(), "-t", topic, "-P"));
        produce.addAll(sasl);
        Kcat.Result produced = Kcat.run(Duration.ofSeconds(30), "one\ntwo\n", produce);
        List<String> consume = new ArrayList<>(List.of("-b", proxy.bootstrap(), "-t", topic, "-C", "-o", "beginning",
                "-c", "2", "-e"));
        consume.addAll(sasl);
        Kcat.Result consumed = Kcat.run(Duration.ofSeconds(30), null, consume);
        assertTrue(produced.succeeded(), produced.stderr());
        assertTrue(consumed.succeeded(), consumed.stderr());
        assertEquals(List.of("one", "two"), consumed.lines());
    }

    private static void assertPythonRoundTrip(RunningProxy proxy, String topic, String mechanism) throws Exception {
        KAFKA.cluster().createTopic(topic, 1);
        String script = """
                import sys, time
                from confluent_kafka import Producer, Consumer
                bootstrap, topic, mechanism, user, password, token = sys.argv[1:7]
                sasl = {'bootstrap.servers': bootstrap, 'security.protocol': 'SASL_PLAINTEXT',
                        'sasl.mechanisms': mechanism}
                if mechanism == 'OAUTHBEARER':
                    # What a token provider returns: the token and when it expires (epoch seconds).
                    sasl['oauth_cb'] = lambda config: (token, time.time() + 300)
                else:
                    sasl.update({'sasl.username': user, 'sasl.password': password})
                p = Producer(dict(sasl))
                for i in range(20):
                    p.produce(topic, value=('py-%d' % i).encode())
                if p.flush(30) != 0:
                    sys.exit('not delivered')
                c = Consumer(dict(sasl, **{'group.id': 'py-' + topic, 'auto.offset.reset': 'earliest'}))
                c.subscribe([topic])
                got = set()
                deadline = time.time() + 30
                while len(got) < 20 and time.time() < deadline:
                    m = c.poll(1.0)
                    if m is not None and m.error() is None:
                        got.add(m.value().decode())
                c.close()
                print(len(got))
                sys.exit(0 if len(got) == 20 else 2)
                """;
        DebianPython.Result run = DebianPython.run(script, Duration.ofSeconds(90), List.of(proxy.bootstrap(), topic,
                mechanism, USER, PASSWORD, token(USER, AUDIENCE, 300)));
        assertTrue(run.succeeded(), run.stdout() + run.stderr());
        assertEquals("20", run.stdout().strip(), run.stderr());
    }

    /**
     * A client configured as given gets {@code expected} within a second, and the proxy routes
     * nothing. The first such client warms the path (class loading, the JIT) on a machine shared
     * with other builds; the second is timed.
     */
    private void assertRefused(String enabled, String mechanism, String user, String password, String token,
                               Class<? extends Exception> expected) throws Exception {
        try (RunningProxy proxy = startProbedOnce(enabled)) {
            Map<String, Double> before = routed(proxy);
            refusal(proxy, mechanism, user, password, token, expected);
            Duration took = refusal(proxy, mechanism, user, password, token, expected);
            assertTrue(took.compareTo(FAILURE_WITHIN) <= 0, "failed after " + took.toMillis() + " ms");
            assertNothingRouted(proxy, before);
        }
    }

    /** One client's refusal: how long its first request took to fail with {@code expected}. */
    private static Duration refusal(RunningProxy proxy, String mechanism, String user, String password, String token,
                                    Class<? extends Exception> expected) {
        try (Admin admin = Admin.create(clientProperties(proxy, mechanism, user, password, token))) {
            long started = System.nanoTime();
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS));
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertInstanceOf(expected, failure.getCause(), String.valueOf(failure.getCause()));
            return took;
        }
    }

    /**
     * A proxy whose readiness probe runs once (its next run is minutes away), so what it routed
     * through the listener (it logs in too, and reads) stays put while a test counts requests.
     */
    private static RunningProxy startProbedOnce(String mechanisms) {
        return startProxy(mechanisms, Map.of(ProxyConfig.READY_PROBE_INTERVAL_MS, "600000"));
    }

    /** The requests answered so far, by API, and the open broker channels (key {@value #CHANNELS}). */
    private static Map<String, Double> routed(RunningProxy proxy) {
        String metrics = proxy.healthBody("/metrics");
        Map<String, Double> counts = new HashMap<>();
        metrics.lines().filter(l -> l.startsWith("kafscale_proxy_requests_seconds_count{")).forEach(l -> counts.merge(
                l.replaceAll(".*api=\"([^\"]+)\".*", "$1"), Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)),
                Double::sum));
        counts.put(CHANNELS, metrics.lines().filter(l -> l.startsWith("kafscale_proxy_backend_channels{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum());
        return counts;
    }

    private static final String CHANNELS = "backend channels";

    /**
     * Since {@code before}, only ApiVersions and the SASL requests were answered (no Metadata) and
     * no broker channel was opened: the refused client reached nothing.
     */
    private static void assertNoBrokerReached(RunningProxy proxy, Map<String, Double> before) {
        assertTrue(routed(proxy).get(CHANNELS) <= before.get(CHANNELS), "a broker channel opened since " + before);
    }

    private static void assertNothingRouted(RunningProxy proxy, Map<String, Double> before) {
        Map<String, Double> after = routed(proxy);
        Set<String> grew = after.keySet().stream()
                .filter(api -> after.get(api) > before.getOrDefault(api, 0.0)).collect(Collectors.toSet());
        assertTrue(Set.of("ApiVersions", "SaslHandshake", "SaslAuthenticate").containsAll(grew),
                "answered or opened since the start: " + grew + " (before " + before + ", after " + after + ")");
    }

    private static RunningProxy startProxy(String mechanisms, Map<String, String> extra) {
        return startProxy(mechanisms, "single", extra);
    }

    private static RunningProxy startProxy(String mechanisms, String advertiseMode, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>();
        env.put("KAFSCALE_PROXY_SASL_MECHANISMS", mechanisms);
        if (!mechanisms.equals("OAUTHBEARER")) {
            env.put("KAFSCALE_PROXY_SASL_CREDENTIALS_FILE", credentials.toString());
        }
        if (mechanisms.contains("OAUTHBEARER")) {
            env.put("KAFSCALE_PROXY_SASL_OAUTHBEARER_JWKS_URL",
                    identityProviderUrl("/jwks"));
            env.put("KAFSCALE_PROXY_SASL_OAUTHBEARER_EXPECTED_AUDIENCE", AUDIENCE);
            env.put("KAFSCALE_PROXY_SASL_OAUTHBEARER_EXPECTED_ISSUER", ISSUER);
            env.put("KAFSCALE_PROXY_SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS", "5");
        }
        env.putAll(extra);
        RunningProxy proxy = RunningProxy.start(KAFKA.cluster(), advertiseMode, env);
        Eventually.await(Duration.ofSeconds(15), "/readyz 200",
                () -> proxy.healthStatus("/readyz") == 200);
        return proxy;
    }

    private static Properties clientProperties(RunningProxy proxy, String mechanism, String user, String password,
                                               String token) {
        Properties props = new Properties();
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrap());
        props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put(SaslConfigs.SASL_MECHANISM, mechanism);
        if (mechanism.equals("OAUTHBEARER")) {
            StaticToken.value = token;
            props.put(SaslConfigs.SASL_JAAS_CONFIG,
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
            props.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, StaticToken.class.getName());
        } else {
            String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            props.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\""
                    + password + "\";");
        }
        return props;
    }

    /** A JWT for {@code subject} signed with the test's key, expiring {@code expiresInSeconds} from now. */
    private static String token(String subject, String audience, int expiresInSeconds) throws Exception {
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(ISSUER);
        claims.setAudience(audience);
        claims.setSubject(subject);
        claims.setIssuedAt(NumericDate.fromSeconds(System.currentTimeMillis() / 1000 - 3600));
        claims.setExpirationTime(NumericDate.fromSeconds(System.currentTimeMillis() / 1000 + expiresInSeconds));
        claims.setClaim("scope", "kafka");
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(signingKey.getPrivateKey());
        jws.setKeyIdHeaderValue(signingKey.getKeyId());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        return jws.getCompactSerialization();
    }

    private static List<String> produce(Properties client, String topic, int count) throws Exception {
        Properties props = new Properties();
        props.putAll(client);
        props.putAll(RecordRoundTrip.idempotentProducerProperties(client.getProperty(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)));
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
                sent.add("v" + i);
            }
            producer.flush();
        }
        return sent;
    }

    private static List<String> consumeAsGroup(Properties client, String topic, String group, int expected) {
        Properties props = new Properties();
        props.putAll(client);
        props.putAll(RecordRoundTrip.consumerProperties(client.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        List<String> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    received.add(record.value());
                }
            }
        }
        return received;
    }

    /** The client's login: hands the token the test made to Kafka's OAUTHBEARER client. */
    public static final class StaticToken implements AuthenticateCallbackHandler {
        static volatile String value;

        @Override
        public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> entries) {
        }

        @Override
        public void handle(Callback[] callbacks) {
            for (Callback callback : callbacks) {
                if (callback instanceof OAuthBearerTokenCallback tokenCallback) {
                    String jwt = value;
                    tokenCallback.token(new OAuthBearerToken() {
                        @Override
                        public String value() {
                            return jwt;
                        }

                        @Override
                        public Set<String> scope() {
                            return Set.of("kafka");
                        }

                        @Override
                        public long lifetimeMs() {
                            return System.currentTimeMillis() + 300_000;
                        }

                        @Override
                        public String principalName() {
                            return USER;
                        }

                        @Override
                        public Long startTimeMs() {
                            return null;
                        }
                    });
                }
            }
        }

        @Override
        public void close() {
        }
    }
}
