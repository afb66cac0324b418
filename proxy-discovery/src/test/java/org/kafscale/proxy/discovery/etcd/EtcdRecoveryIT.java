package org.kafscale.proxy.discovery.etcd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kafscale.proxy.testkit.Eventually;

/**
 * etcd back, routing back, fast: after an outage past the TTL, the proxy routes again within 2 s of
 * etcd answering, however long its etcd client had been backing off reconnects.
 */
class EtcdRecoveryIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofSeconds(2);
    /** The proxy's own etcd read deadline (ProxyRuntime). */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Long enough for the client's reconnect backoff to grow past 2 s (gRPC's grows by 1.6 per
     * failed attempt from 1 s: about 6.5 s after 10 s down).
     */
    private static final long OUTAGE_MILLIS = 12_000;
    /** What issue 13 allows between etcd answering and routing resuming. */
    private static final Duration RESUME_BOUND = Duration.ofSeconds(2);

    @RegisterExtension
    static final OrdersInEtcd ETCD = new OrdersInEtcd();

    @RegisterExtension
    final DiscoveryLogs logs = new DiscoveryLogs();

    @Test
    void routingResumesWithinTwoSecondsOfEtcdAnsweringAfterAnOutagePastTheTtl() {
        // Given: a topology with the proxy's etcd client, routing on etcd's data
        try (EtcdTopology topology = EtcdFixtures.topology(EtcdFixtures.client(ETCD.etcd().endpoint()), TTL,
                EtcdFixtures.NO_BACKSTOP, READ_TIMEOUT)) {
            topology.start().join();
            // When: etcd is down past the TTL while requests keep asking to route
            ETCD.etcd().stop();
            try {
                Eventually.await(DEADLINE, "the TTL gate to close", () -> !topology.routable());
                Eventually.await(DEADLINE, "an outage of " + OUTAGE_MILLIS + " ms, refused throughout",
                        () -> refusedFor(topology, OUTAGE_MILLIS));
            } finally {
                ETCD.etcd().start();
            }
            // ... and etcd answers a direct read again
            awaitDirectRead();
            long answered = System.nanoTime();
            Eventually.await(DEADLINE, "routing to resume", () -> topology.recheck().toCompletableFuture().join());
            // Then
            Duration took = Duration.ofNanos(System.nanoTime() - answered);
            assertTrue(took.compareTo(RESUME_BOUND) <= 0,
                    "routing resumed " + took.toMillis() + " ms after etcd answered; the bound is " + RESUME_BOUND);
            Eventually.await(DEADLINE, "a line saying that routing resumes",
                    () -> !logs.lines(Level.INFO, "routing resumes").isEmpty());
        }
    }

    /** Asks to route, as a refused request does; true once etcd has been unread for {@code millis}. */
    private static boolean refusedFor(EtcdTopology topology, long millis) {
        assertFalse(topology.recheck().toCompletableFuture().join(), "refused while etcd is down");
        return topology.millisSinceGoodRead() >= millis;
    }

    /** A fresh client (no backoff of its own) reads a key: etcd answers from here on. */
    private static void awaitDirectRead() {
        try (Client direct = Client.builder().endpoints(ETCD.etcd().endpoint()).build()) {
            ByteSequence key = ByteSequence.from(KafscaleKeys.SNAPSHOT, StandardCharsets.UTF_8);
            Eventually.await(DEADLINE, "etcd to answer a direct read", () -> {
                try {
                    direct.getKVClient().get(key).get(1, TimeUnit.SECONDS);
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }
}
