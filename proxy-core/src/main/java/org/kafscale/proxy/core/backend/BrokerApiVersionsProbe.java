package org.kafscale.proxy.core.backend;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.OutboundRequests;
import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks each broker the topology lists for its ApiVersions and records the answers, so the proxy
 * advertises only versions and features every broker serves.
 *
 * <p>A broker is probed again when it may have changed: when it appears (or reappears after it
 * left the topology, as a restarting broker does), when its address changes, after a failed probe
 * (a broker that does not answer is probed on every pass until it does: it is likely restarting,
 * maybe upgraded), and every {@link #REFRESH} regardless, which catches a restart the topology did
 * not show and features finalized since (UpdateFeatures). A broker that leaves is forgotten.
 */
public final class BrokerApiVersionsProbe {
    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerApiVersionsProbe.class);
    /** Longest time a broker's report is trusted without asking again. */
    public static final Duration REFRESH = Duration.ofSeconds(30);

    /** When a broker, at that address, last answered. */
    private record Probed(BrokerEndpoint endpoint, long atNanos) {
    }

    private final Topology topology;
    private final KafkaRequestClient client;
    private final BrokerApiVersions versions;
    private final Map<Integer, Probed> probed = new ConcurrentHashMap<>();
    private final Set<Integer> inFlight = ConcurrentHashMap.newKeySet();
    /** Brokers whose last probe failed: what failed and since when (the first failure in a row). */
    private final Map<Integer, Unreachable> unreachable = new ConcurrentHashMap<>();

    /**
     * A listed broker the proxy could not reach on its last probe.
     *
     * @param broker the broker, at the address it was probed at
     * @param failure what the probe saw
     * @param since when its probes began failing
     */
    public record Unreachable(BrokerEndpoint broker, String failure, Instant since) {
    }

    public BrokerApiVersionsProbe(Topology topology, KafkaRequestClient client, BrokerApiVersions versions) {
        this.topology = topology;
        this.client = client;
        this.versions = versions;
    }

    /** Probes every listed broker that is due (see the class comment); call periodically. Never blocks. */
    public void probeBrokers() {
        TopologySnapshot snapshot = topology.snapshot();
        Set<Integer> listed = snapshot.brokers().keySet();
        probed.keySet().retainAll(listed);
        unreachable.keySet().retainAll(listed);
        Set<Integer> left = versions.reporting().stream().filter(id -> !listed.contains(id))
                .collect(Collectors.toCollection(TreeSet::new));
        if (!left.isEmpty()) {
            versions.retainOnly(listed);
            LOGGER.info("Brokers {} left the topology; their ApiVersions are forgotten", left);
        }
        long now = System.nanoTime();
        for (BrokerEndpoint broker : snapshot.brokers().values()) {
            if (due(broker, now) && inFlight.add(broker.id())) {
                // A fresh ApiVersions at the newest version each time: the connection's own handshake
                // answer is cached with the connection, and below v4 a broker leaves out every
                // feature whose range starts at 0 (KIP-1022).
                client.send(broker, OutboundRequests.apiVersions()).whenComplete((data, failure) -> {
                    inFlight.remove(broker.id());
                    Throwable error = failure != null ? failure
                            : data.errorCode() != Errors.NONE.code() ? Errors.forCode(data.errorCode()).exception() : null;
                    if (error != null) {
                        // Due again on the next pass: an unreachable broker is probably restarting.
                        probed.remove(broker.id());
                        unreachable.compute(broker.id(), (id, before) -> before != null && before.broker().equals(broker)
                                ? new Unreachable(broker, error.toString(), before.since())
                                : new Unreachable(broker, error.toString(), Instant.now()));
                        LOGGER.debug("ApiVersions probe of {} failed: {}", broker, error.toString());
                    } else {
                        unreachable.remove(broker.id());
                        record(broker, data, now);
                    }
                });
            }
        }
    }

    /** The listed brokers whose last probe failed, by id (for health: serving, but degraded). */
    public Map<Integer, Unreachable> unreachable() {
        return Map.copyOf(unreachable);
    }

    private boolean due(BrokerEndpoint broker, long now) {
        Probed last = probed.get(broker.id());
        return last == null || !last.endpoint().equals(broker) || !versions.knows(broker.id())
                || now - last.atNanos() >= REFRESH.toNanos();
    }

    private void record(BrokerEndpoint broker, ApiVersionsResponseData data, long now) {
        boolean changed = versions.differs(broker.id(), data);
        versions.update(broker.id(), data);
        probed.put(broker.id(), new Probed(broker, now));
        if (changed) {
            LOGGER.info("Probed {}: {} APIs, finalized features {} (epoch {})", broker, data.apiKeys().size(),
                    data.finalizedFeatures().stream().map(f -> f.name() + "=" + f.maxVersionLevel()).sorted().toList(),
                    data.finalizedFeaturesEpoch());
        }
    }
}
