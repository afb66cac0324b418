package org.kafscale.proxy.app.e2e;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.app.ProxyRuntime;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.testkit.KafkaClusterExtension;

/**
 * A proxy whose start-up fails half-way, because the port of its Kafka listener or of its health
 * listener (started last) is taken, says which setting and stops what it had started: its Kafka
 * port is free again and its threads end. An operator retrying in the same process, or a test
 * suite starting proxies one after another, would otherwise find the port taken and the threads
 * piling up.
 */
class ProxyStartFailureIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** The names the proxy's threads start with: event loops, accept loop, housekeeping, health. */
    private static final List<String> PROXY_THREADS = List.of("kafka-io", "kafka-accept", "proxy-housekeeping",
            "health-io");

    @RegisterExtension
    static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(1);

    @ParameterizedTest(name = "{0} taken")
    @ValueSource(strings = {"KAFSCALE_PROXY_ADDR", "KAFSCALE_PROXY_HEALTH_ADDR"})
    void aStartThatFailsNamesTheSettingAndClosesWhatItHadStarted(String takenSetting) throws Exception {
        // Given: one of the two listeners' ports taken by another socket, and the proxy threads alive before
        Set<Long> before = proxyThreads();
        int kafkaPort = FreePorts.next();
        int healthPort = FreePorts.next();
        ConfigException refused;
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    takenSetting.equals(ProxyConfig.ADDR) ? kafkaPort : healthPort));
            ProxyConfig config = ProxyConfig.from(Map.of(
                    ProxyConfig.ADDR, "127.0.0.1:" + kafkaPort,
                    ProxyConfig.ADVERTISED_HOST, "127.0.0.1",
                    ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + healthPort,
                    ProxyConfig.BACKENDS, KAFKA.cluster().bootstrapServers()));

            // When: the proxy starts
            refused = assertThrows(ConfigException.class, () -> ProxyRuntime.start(config).close(),
                    "a proxy whose port is taken does not start");
        }

        // Then: the error names the setting, the Kafka port can be bound again, and none of the
        // proxy's threads outlives the failure
        assertTrue(refused.getMessage().startsWith(takenSetting + ":"), refused.getMessage());
        Eventually.await(DEADLINE, "the failed proxy's Kafka port is free", () -> canBind(kafkaPort));
        Eventually.await(DEADLINE, "the failed proxy's threads have ended", () -> before.containsAll(proxyThreads()));
    }

    private static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** The ids of the live threads a proxy starts: its event loops and its housekeeping. */
    private static Set<Long> proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && PROXY_THREADS.stream().anyMatch(t.getName()::startsWith))
                .map(Thread::getId)
                .collect(Collectors.toSet());
    }
}
