package org.kafscale.proxy.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link KafkaCluster} and a real etcd with a {@link KafscaleEtcdWriter} on it, for the tests of
 * one class that route from KafScale's keys: started before the first test, closed (writer, etcd,
 * cluster) after the last.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaAndEtcdExtension BACKENDS = KafkaAndEtcdExtension.withBrokers(3);
 * ... BACKENDS.kafscale().publishSnapshot(BACKENDS.cluster(), topics);
 * }</pre>
 */
public final class KafkaAndEtcdExtension implements BeforeAllCallback, AfterAllCallback {
    private final int brokers;
    private KafkaCluster cluster;
    private EtcdProcess etcd;
    private KafscaleEtcdWriter kafscale;

    private KafkaAndEtcdExtension(int brokers) {
        this.brokers = brokers;
    }

    public static KafkaAndEtcdExtension withBrokers(int brokers) {
        return new KafkaAndEtcdExtension(brokers);
    }

    /** The running cluster; only between the class's first and last test. */
    public KafkaCluster cluster() {
        return running(cluster);
    }

    /** The running etcd. */
    public EtcdProcess etcd() {
        return running(etcd);
    }

    /** Writes KafScale's keys into {@link #etcd()}. */
    public KafscaleEtcdWriter kafscale() {
        return running(kafscale);
    }

    private static <T> T running(T part) {
        if (part == null) {
            throw new IllegalStateException("the cluster and etcd run only while the test class runs");
        }
        return part;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = KafkaCluster.start(brokers);
        etcd = EtcdProcess.startNew();
        kafscale = KafscaleEtcdWriter.connect(etcd.endpoint());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (kafscale != null) {
            kafscale.close();
            kafscale = null;
        }
        if (etcd != null) {
            etcd.close();
            etcd = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
