package org.kafscale.proxy.testkit;

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
    private KafkaCluster cluster;

    private KafkaClusterExtension(int brokers) {
        this.brokers = brokers;
    }

    public static KafkaClusterExtension withBrokers(int brokers) {
        return new KafkaClusterExtension(brokers);
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
        cluster = KafkaCluster.start(brokers);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
