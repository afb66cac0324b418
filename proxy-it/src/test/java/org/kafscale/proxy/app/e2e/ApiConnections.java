package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * Kafka connections reused across requests: one to the proxy and one per broker, each opened
 * again after it failed or was closed (the proxy closes a connection on a request it refuses).
 * Finds where a {@link DirectTarget} lives as a Kafka client would: coordinators with a direct
 * FindCoordinator, leaders from metadata.
 */
final class ApiConnections implements AutoCloseable {
    /** What a request got: an answer, or why there was none. */
    record Outcome(AbstractResponse answer, String failure) {
        static Outcome of(AbstractResponse answer) {
            return new Outcome(answer, null);
        }

        static Outcome failed(String why) {
            return new Outcome(null, why);
        }

        boolean answered() {
            return answer != null;
        }
    }

    private final KafkaCluster cluster;
    private final Map<Integer, RawKafkaConnection> open = new HashMap<>();
    private final Map<String, Integer> coordinators = new HashMap<>();
    /** Connections are keyed by port; the proxy's is one of them. */
    private final int proxyPort;

    private ApiConnections(KafkaCluster cluster, int proxyPort) {
        this.cluster = cluster;
        this.proxyPort = proxyPort;
    }

    /** Connections to the proxy listening on {@code proxyPort} and to the brokers of {@code cluster}. */
    static ApiConnections withProxy(KafkaCluster cluster, int proxyPort) {
        return new ApiConnections(cluster, proxyPort);
    }

    /** Connections to the brokers only. */
    static ApiConnections directOnly(KafkaCluster cluster) {
        return new ApiConnections(cluster, -1);
    }

    Outcome viaProxy(ApiMessage body, short version) {
        if (proxyPort < 0) {
            throw new IllegalStateException("these connections reach the brokers only");
        }
        return exchange(proxyPort, body, version);
    }

    Outcome direct(DirectTarget target, ApiMessage body, short version) {
        return exchange(brokerPort(brokerFor(target)), body, version);
    }

    int brokerFor(DirectTarget target) {
        if (target instanceof DirectTarget.Broker broker) {
            return broker.id();
        }
        if (target instanceof DirectTarget.Leader leader) {
            return cluster.leaders(leader.topic()).get(leader.partition());
        }
        if (target instanceof DirectTarget.GroupCoordinator group) {
            return coordinator((byte) 0, group.group());
        }
        if (target instanceof DirectTarget.TransactionCoordinator txn) {
            return coordinator((byte) 1, txn.transactionalId());
        }
        return cluster.brokerIds().get(0);
    }

    /** Every broker's port: none of them may appear in an answer through the proxy. */
    List<Integer> brokerPorts() {
        return cluster.brokerIds().stream().map(this::brokerPort).toList();
    }

    private int brokerPort(int id) {
        String address = cluster.brokerAddress(id);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    private int coordinator(byte keyType, String key) {
        return coordinators.computeIfAbsent(keyType + "/" + key, k -> {
            Outcome found = exchange(brokerPort(cluster.brokerIds().get(0)), new FindCoordinatorRequestData()
                    .setKeyType(keyType).setCoordinatorKeys(List.of(key)), ApiKeys.FIND_COORDINATOR.latestVersion());
            if (!found.answered()) {
                throw new IllegalStateException("no coordinator for " + key + ": " + found.failure());
            }
            FindCoordinatorResponseData.Coordinator coordinator =
                    ((FindCoordinatorResponseData) found.answer().data()).coordinators().get(0);
            if (coordinator.errorCode() != Errors.NONE.code()) {
                throw new IllegalStateException("no coordinator for " + key + ": " + Errors.forCode(coordinator.errorCode()));
            }
            return coordinator.nodeId();
        });
    }

    private Outcome exchange(int port, ApiMessage body, short version) {
        RawKafkaConnection connection;
        try {
            connection = connection(port);
        } catch (IOException e) {
            return Outcome.failed("cannot connect to port " + port + ": " + e);
        }
        try {
            return Outcome.of(connection.read(connection.write(body, version)));
        } catch (IOException | RuntimeException e) {
            // Out of step or closed: the next request starts on a new connection
            forget(port);
            return Outcome.failed(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private RawKafkaConnection connection(int port) throws IOException {
        RawKafkaConnection connection = open.get(port);
        if (connection == null) {
            connection = new RawKafkaConnection(port);
            open.put(port, connection);
        }
        return connection;
    }

    private void forget(int port) {
        RawKafkaConnection connection = open.remove(port);
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException ignored) {
                // already broken
            }
        }
    }

    @Override
    public void close() {
        List.copyOf(open.keySet()).forEach(this::forget);
    }
}
