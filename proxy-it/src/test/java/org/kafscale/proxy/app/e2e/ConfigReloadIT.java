package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * Live reconfiguration with producers running throughout: alice (team-a) and bob (team-b) send
 * records without a pause while the gateway file and the {@code --config} file change under the
 * proxy. Each change is picked up by the file watcher and applied without a restart; the clients
 * it changes are drained (answered, then closed) and carry on after reconnecting, every other
 * connection stays open, and no send fails. A broken file changes nothing.
 */
class ConfigReloadIT {
    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TOPIC = "orders";
    private static final String TOKEN = "reload-test-token";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEAMS = """
            virtualClusters:
              - name: team-a
                principals: ["User:alice"]
                topicPrefix: "a."
              - name: team-b
                principals: ["User:bob"]
                topicPrefix: "b."
                quotas: {produceBytesPerSecond: 50000000}
            """;

    @TempDir
    static Path dir;
    private static Path gatewayFile;
    private static Path configFile;
    private static RunningProxy proxy;
    private static final String STARTING_CONFIG = "KAFSCALE_PROXY_ADVERTISED_HOST: 127.0.0.1\n";

    @BeforeAll
    static void startProxy() throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(ScramUsers.gatewaySettings(dir, "SCRAM-SHA-512",
                List.of("alice", "bob", "carol"), TEAMS));
        gatewayFile = Path.of(settings.get(ProxyConfig.GATEWAY_FILE));
        // Bound to every loopback address, so a client told 127.0.0.2 reaches it too.
        settings.put(ProxyConfig.ADDR, "0.0.0.0:" + FreePorts.next());
        // Blank, so the --config file's advertised host is the one in force (the environment would win).
        settings.put(ProxyConfig.ADVERTISED_HOST, "");
        settings.put(ProxyConfig.ADMIN_TOKEN, TOKEN);
        settings.put(ProxyConfig.CONFIG_WATCH_MS, "200");
        configFile = dir.resolve("proxy.yaml");
        Files.writeString(configFile, STARTING_CONFIG);
        proxy = RunningProxy.startReloadable(KAFKA.cluster(), "single", settings, configFile);
        Eventually.await(DEADLINE, "/readyz 200", () -> proxy.healthStatus("/readyz") == 200);
        for (String user : List.of("alice", "bob")) {
            try (Admin admin = Admin.create(client(user))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void changesApplyWhileClientsRunAndOnlyTheClientsTheyChangeReconnect() throws Exception {
        try (Traffic alice = new Traffic("alice"); Traffic bob = new Traffic("bob")) {
            alice.awaitSent(20);
            bob.awaitSent(20);

            // When: a virtual cluster is added, for carol
            long aliceCloses = alice.closes();
            long bobCloses = bob.closes();
            reloadAfter(() -> write(gatewayFile, TEAMS + """
                      - name: team-c
                        principals: ["User:carol"]
                        topicPrefix: "c."
                    """));
            // Then carol is served in it, and neither alice's nor bob's connections were touched
            try (Admin carol = Admin.create(client("carol"))) {
                assertEquals(Set.of(), carol.listTopics().names().get(30, TimeUnit.SECONDS));
            }
            alice.awaitSent(alice.sent() + 20);
            bob.awaitSent(bob.sent() + 20);
            assertEquals(aliceCloses, alice.closes(), "alice's connections are untouched");
            assertEquals(bobCloses, bob.closes(), "bob's connections are untouched");

            // When: team-b's quota changes
            reloadAfter(() -> write(gatewayFile, (TEAMS + """
                      - name: team-c
                        principals: ["User:carol"]
                        topicPrefix: "c."
                    """).replace("50000000", "40000000")));
            // Then bob reconnects and carries on; alice is untouched
            Eventually.await(DEADLINE, "bob's connections to be drained", () -> bob.closes() > bobCloses);
            bob.awaitSent(bob.sent() + 20);
            alice.awaitSent(alice.sent() + 20);
            assertEquals(aliceCloses, alice.closes(), "alice's connections are untouched");

            // When: the advertised host changes, in the --config file
            long aliceBefore = alice.closes();
            reloadAfter(() -> write(configFile, "KAFSCALE_PROXY_ADVERTISED_HOST: 127.0.0.2\n"));
            // Then every client reconnects, and is told the new address
            Eventually.await(DEADLINE, "alice's connections to be drained", () -> alice.closes() > aliceBefore);
            alice.awaitSent(alice.sent() + 20);
            bob.awaitSent(bob.sent() + 20);
            try (Admin admin = Admin.create(client("bob"))) {
                List<Node> nodes = List.copyOf(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
                assertEquals("127.0.0.2", nodes.get(0).host());
            }

            // When: the gateway file is broken
            long closesBefore = alice.closes() + bob.closes();
            double refused = proxy.metric("kafscale_proxy_config_reloads_total{result=\"refused\"");
            write(gatewayFile, TEAMS.replace("topicPrefix: \"b.\"", "topicPrefix: [not, a, prefix]"));
            Eventually.await(DEADLINE, "the broken file to be refused",
                    () -> proxy.metric("kafscale_proxy_config_reloads_total{result=\"refused\"") > refused);
            // Then one ERROR line names the path in the file, and nothing changed
            logs.awaitLine(DEADLINE, "Configuration reload (changed: " + gatewayFile);
            assertTrue(logs.events().stream().anyMatch(e -> e.getLevel().toString().equals("ERROR")
                    && e.getFormattedMessage().contains("virtualClusters[1].topicPrefix")), logs.warnings());
            try (Admin carol = Admin.create(client("carol"))) {
                assertEquals(Set.of(), carol.listTopics().names().get(30, TimeUnit.SECONDS), "team-c is still served");
            }
            alice.awaitSent(alice.sent() + 20);
            bob.awaitSent(bob.sent() + 20);
            assertEquals(closesBefore, alice.closes() + bob.closes(), "no connection was touched");
            assertEquals(0, alice.failures() + bob.failures(), "no send failed");
        } finally {
            // The files back as the proxy started with them, so the next test reloads from there
            restore(gatewayFile, TEAMS);
            restore(configFile, STARTING_CONFIG);
        }
    }

    @Test
    void theAdminApiTakesItsTokenAndShowsTheConfigurationWithoutItsSecrets() throws Exception {
        HttpResponse<String> anonymous = admin("POST", "/admin/reload", null);
        assertEquals(401, anonymous.statusCode());
        assertEquals("unauthorized", JSON.readTree(anonymous.body()).path("error").asText());
        assertEquals(401, admin("GET", "/admin/config", "not-the-token").statusCode());

        HttpResponse<String> shown = admin("GET", "/admin/config", TOKEN);
        assertEquals(200, shown.statusCode());
        JsonNode config = JSON.readTree(shown.body());
        assertEquals("<redacted>", config.path("settings").path("KAFSCALE_PROXY_ADMIN_TOKEN").asText());
        assertEquals(gatewayFile.toString(), config.path("settings").path(ProxyConfig.GATEWAY_FILE).asText());
        assertEquals("team-a", config.path("gatewayFile").path("virtualClusters").path(0).path("name").asText());
        assertFalse(shown.body().contains(TOKEN));

        assertEquals(405, admin("GET", "/admin/reload", TOKEN).statusCode());
        HttpResponse<String> reloaded = admin("POST", "/admin/reload", TOKEN);
        assertEquals(200, reloaded.statusCode(), reloaded.body());
        assertTrue(Set.of("applied", "unchanged").contains(JSON.readTree(reloaded.body()).path("result").asText()),
                reloaded.body());
    }

    @Test
    void aSettingOnlyAStartAppliesIsNamedAndLeftAsItRuns() throws Exception {
        String before = Files.readString(configFile);
        try {
            write(configFile, before + "KAFSCALE_PROXY_MAX_IN_FLIGHT: 7\n");
            HttpResponse<String> reloaded = admin("POST", "/admin/reload", TOKEN);
            JsonNode answer = JSON.readTree(reloaded.body());
            assertEquals(200, reloaded.statusCode(), reloaded.body());
            assertTrue(answer.path("atNextStart").toString().contains("KAFSCALE_PROXY_MAX_IN_FLIGHT"), reloaded.body());
            JsonNode inForce = JSON.readTree(admin("GET", "/admin/config", TOKEN).body());
            assertTrue(inForce.path("settings").path("KAFSCALE_PROXY_MAX_IN_FLIGHT").isMissingNode(),
                    "the running value stays: " + inForce.path("settings"));
        } finally {
            write(configFile, before);
        }
    }

    @Test
    void aLoweredUnauthenticatedIdleTimeoutClosesASilentSocketAcceptedAfterTheReload() throws Exception {
        String before = Files.readString(configFile);
        try {
            reloadAfter(() -> write(configFile, before + "KAFSCALE_PROXY_UNAUTHENTICATED_IDLE_TIMEOUT_MS: 500\n"));
            try (java.net.Socket silent = new java.net.Socket("127.0.0.1", proxy.kafkaPort())) {
                // Well below the ten seconds it ran with: only the new value closes it this soon.
                silent.setSoTimeout(8_000);
                assertEquals(-1, silent.getInputStream().read(), "the proxy closed the silent socket");
            }
        } finally {
            reloadAfter(() -> write(configFile, before));
        }
    }

    /** Waits, after {@code change}, for the watcher to apply a reload. */
    private static void reloadAfter(Runnable change) {
        double applied = proxy.metric("kafscale_proxy_config_reloads_total{result=\"applied\"");
        change.run();
        Eventually.await(DEADLINE, "the change to be applied",
                () -> proxy.metric("kafscale_proxy_config_reloads_total{result=\"applied\"") > applied);
    }

    /** Writes {@code text} back into {@code file} and waits for its reload, unless the file holds it already. */
    private static void restore(Path file, String text) throws IOException {
        if (!Files.readString(file).equals(text)) {
            reloadAfter(() -> write(file, text));
        }
    }

    /** Replaces the file whole, as a ConfigMap update does, so the watcher never reads half of it. */
    private static void write(Path file, String text) {
        try {
            Path next = Files.writeString(file.resolveSibling(file.getFileName() + ".next"), text);
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static HttpResponse<String> admin(String method, String path, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.healthUrl(path)))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Properties client(String user) {
        Properties props = ScramUsers.client(proxy.bootstrap(), user);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return props;
    }

    /** A producer sending to its tenant's {@code orders} without a pause, on a thread of its own. */
    private static final class Traffic implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final Thread thread;
        private final AtomicLong sent = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();
        private volatile boolean running = true;

        Traffic(String user) {
            Properties props = client(user);
            props.putAll(RecordRoundTrip.idempotentProducerProperties(proxy.bootstrap()));
            this.producer = new KafkaProducer<>(props);
            this.thread = new Thread(() -> {
                while (running) {
                    try {
                        producer.send(new ProducerRecord<>(TOPIC, user, user + "-" + sent.get())).get(60, TimeUnit.SECONDS);
                        sent.incrementAndGet();
                    } catch (InterruptedException e) {
                        return;
                    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                        failures.incrementAndGet();
                        lastFailure.set(e);
                    }
                }
            }, "traffic-" + user);
            thread.start();
        }

        long sent() {
            return sent.get();
        }

        long failures() {
            return failures.get();
        }

        void awaitSent(long count) {
            Eventually.await(DEADLINE, thread.getName() + " to have sent " + count + " records (failures: "
                    + failures.get() + ", last " + lastFailure.get() + ")", () -> sent.get() >= count);
        }

        /** How many of its connections were closed (by the proxy: it never closes one itself here). */
        long closes() {
            return producer.metrics().entrySet().stream()
                    .filter(m -> m.getKey().name().equals("connection-close-total")
                            && m.getKey().group().equals("producer-metrics"))
                    .mapToLong(m -> (long) (double) (Double) m.getValue().metricValue()).sum();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(TimeUnit.SECONDS.toMillis(90));
            producer.close(Duration.ofSeconds(10));
        }
    }
}
