package org.kafscale.proxy.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The benchmark's Kafka cluster and S3 server, in a JVM of their own so that the brokers' CPU and
 * garbage are not charged to the proxy or to the clients.
 *
 * <p>Prints one line {@code READY <bootstrap> <s3 endpoint> <access key> <secret key>} once both serve, then runs until its
 * standard input closes (the benchmark's JVM ending, for whatever reason, ends this one too).
 */
public final class ClusterMain {
    public static final String READY = "READY";
    public static final int BROKERS = 3;

    private ClusterMain() {
    }

    public static void main(String[] args) throws IOException {
        try (KafkaCluster cluster = KafkaCluster.start(BROKERS, retentionCheckedOften()); S3Server s3 = S3Server.start()) {
            System.out.println(String.join(" ", READY, cluster.bootstrapServers(), s3.endpoint().toString(),
                    s3.accessKey(), s3.secretKey()));
            System.out.flush();
            awaitEndOfInput(System.in);
        }
        // The test kit leaves non-daemon threads behind; the cluster is closed, so end here.
        System.exit(0);
    }

    /**
     * The bench's topics are bounded in bytes (BenchMain); the brokers look for segments to delete
     * every 10 s instead of Kafka's 5 minutes, so the bound holds during a run.
     */
    private static Map<Integer, Map<String, String>> retentionCheckedOften() {
        Map<Integer, Map<String, String>> properties = new HashMap<>();
        for (int broker = 0; broker < BROKERS; broker++) {
            properties.put(broker, Map.of("log.retention.check.interval.ms", "10000"));
        }
        return properties;
    }

    private static void awaitEndOfInput(InputStream in) throws IOException {
        byte[] sink = new byte[64];
        while (in.read(sink) >= 0) {
            // nothing to read: the parent only ever closes the stream
        }
    }
}
