package org.kafscale.proxy.bench.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.testkit.BrokerSecurity;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;
import org.kafscale.proxy.testkit.TestCertificates;

/**
 * The benchmark's Kafka cluster and S3 server, in a JVM of their own so that the brokers' CPU and
 * garbage are not charged to the proxy or to the clients.
 *
 * <p>Prints one line {@code READY <bootstrap> <s3 endpoint> <access key> <secret key>} once both serve, then runs until its
 * standard input closes (the benchmark's JVM ending, for whatever reason, ends this one too).
 *
 * <p>With the argument {@code tls <directory>} it also starts a second cluster of as many brokers
 * whose listeners (clients' and each other's) speak TLS, for the TLS rows of the benchmark, and
 * the line goes on with {@code <its bootstrap> <CA PEM> <trust store> <server chain PEM> <server
 * key PEM>}: the CA it made under {@code <directory>}, and a certificate for {@code localhost} and
 * {@code 127.0.0.1} that a proxy in front of it can serve. An idle cluster costs the other's
 * rounds little: the rounds of each run only while the other is idle.
 */
public final class ClusterMain {
    public static final String READY = "READY";
    public static final int BROKERS = 3;

    private ClusterMain() {
    }

    public static void main(String[] args) throws IOException {
        boolean tls = args.length == 2 && args[0].equals("tls");
        try (KafkaCluster cluster = KafkaCluster.start(BROKERS, retentionCheckedOften()); S3Server s3 = S3Server.start();
                TlsCluster tlsCluster = tls ? TlsCluster.start(Path.of(args[1])) : null) {
            List<String> ready = new ArrayList<>(List.of(READY, cluster.bootstrapServers(), s3.endpoint().toString(),
                    s3.accessKey(), s3.secretKey()));
            if (tlsCluster != null) {
                ready.addAll(tlsCluster.describe());
            }
            System.out.println(String.join(" ", ready));
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

    /** The second cluster, its brokers on TLS, with the certificates a client and a proxy need. */
    private record TlsCluster(KafkaCluster cluster, TestCertificates certificates) implements AutoCloseable {
        static TlsCluster start(Path directory) {
            TestCertificates certificates = TestCertificates.create(directory);
            return new TlsCluster(KafkaCluster.start(BROKERS, retentionCheckedOften(), BrokerSecurity.ssl(certificates)),
                    certificates);
        }

        List<String> describe() {
            TestCertificates.Identity server = certificates.server();
            return List.of(cluster.bootstrapServers(), certificates.caFile().toString(),
                    certificates.trustStoreFile().toString(), server.chainFile().toString(), server.keyFile().toString());
        }

        @Override
        public void close() {
            cluster.close();
        }
    }

    private static void awaitEndOfInput(InputStream in) throws IOException {
        byte[] sink = new byte[64];
        while (in.read(sink) >= 0) {
            // nothing to read: the parent only ever closes the stream
        }
    }
}
