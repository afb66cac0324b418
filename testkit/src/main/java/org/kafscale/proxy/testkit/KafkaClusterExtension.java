package org.kafscale.proxy.testkit;

import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link KafkaCluster} for the tests of one class: started before the first test, closed after
 * the last.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaClusterExtension KAFKA = KafkaClusterExtension.withBrokers(3);
 * ... KAFKA.cluster().createTopic("t", 3);
 * }</pre>
 */
public final class KafkaClusterExtension implements BeforeAllCallback, AfterAllCallback {
    private final int brokers;
    private final Map<Integer, Map<String, String>> brokerProperties;
    private final Supplier<BrokerSecurity> security;
    private KafkaCluster cluster;

    private KafkaClusterExtension(int brokers, Map<Integer, Map<String, String>> brokerProperties,
                                  Supplier<BrokerSecurity> security) {
        this.brokers = brokers;
        this.brokerProperties = brokerProperties;
        this.security = security;
    }

    public static KafkaClusterExtension withBrokers(int brokers) {
        return new KafkaClusterExtension(brokers, Map.of(), BrokerSecurity::plaintext);
    }

    /**
     * Brokers whose client listener is secured as {@code security} says ({@link KafkaCluster#start(int,
     * BrokerSecurity)}); a supplier, so certificates are made when the class starts, not when it loads.
     */
    public static KafkaClusterExtension withSecurity(int brokers, Supplier<BrokerSecurity> security) {
        return new KafkaClusterExtension(brokers, Map.of(), security);
    }

    /** Brokers with properties of their own, by broker id ({@link KafkaCluster#start(int, Map)}). */
    public static KafkaClusterExtension withBrokers(int brokers, Map<Integer, Map<String, String>> brokerProperties) {
        return new KafkaClusterExtension(brokers, Map.copyOf(brokerProperties), BrokerSecurity::plaintext);
    }

    /** The running cluster; only between the class's first and last test. */
    public KafkaCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the cluster runs only while the test class runs");
        }
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = KafkaCluster.start(brokers, brokerProperties, security.get());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
