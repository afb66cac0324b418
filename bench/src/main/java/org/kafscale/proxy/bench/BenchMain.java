package org.kafscale.proxy.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.BenchReport;
import org.kafscale.proxy.bench.report.MarkdownTable;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.workload.LfsUpload;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The side-by-side benchmark (issue 7): a 3-broker cluster (with an S3 server) in one JVM, the
 * proxy in two more (advertise modes {@code single} and {@code brokers}), and the workloads here,
 * against the brokers directly and through the proxy. Writes the JSON for comparing commits and
 * the table in docs/benchmarks.md. Run it with {@code scripts/bench.sh}.
 */
public final class BenchMain {
    private static final Duration CLUSTER_START = Duration.ofMinutes(3);
    private static final String BUCKET = "bench-lfs";

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.fromSystemProperties();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Path logs = settings.resultsDir().resolve("logs");
        List<Row> rows;
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of("-Xmx3g", "-XX:+UseG1GC"), ClusterMain.class.getName(),
                List.of(), Map.of(), logs.resolve("cluster.log"), line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(CLUSTER_START).split(" ");
            String bootstrap = ready[1];
            S3Target s3 = new S3Target(java.net.URI.create(ready[2]), ready[3], ready[4], BUCKET);
            Suite.log("cluster at %s, S3 at %s", bootstrap, s3.endpoint());
            createTopics(bootstrap, settings.partitions());
            try (S3Client s3Client = s3.client()) {
                s3Client.createBucket(b -> b.bucket(BUCKET));
                try (ProxyProcess single = ProxyProcess.start("single", bootstrap, s3, settings.proxyJvmOptions(), logs);
                     ProxyProcess brokers = ProxyProcess.start("brokers", bootstrap, s3, List.of(), logs);
                     ProxyCounters counters = ProxyCounters.attach(single)) {
                    Suite.log("proxies at %s (single) and %s (brokers)", single.bootstrap(), brokers.bootstrap());
                    rows = new Suite(settings,
                            new Route("direct", bootstrap, false),
                            new Route("proxy, single mode", single.bootstrap(), true),
                            new Route("proxy, brokers mode", brokers.bootstrap(), true),
                            counters,
                            new LfsUpload(single.lfs(), s3Client, BUCKET)).run();
                }
            }
        }
        BenchReport report = new BenchReport(settings.command(), started.toString(), settings.commit(),
                Environment.describe(), settings.describe(), rows);
        write(report, settings);
        System.exit(0);
    }

    private static void createTopics(String bootstrap, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(
                    new NewTopic(Suite.THROUGHPUT_TOPIC, partitions, (short) 3),
                    new NewTopic(Suite.LATENCY_TOPIC, partitions, (short) 3),
                    new NewTopic(Suite.E2E_TOPIC, partitions, (short) 3),
                    new NewTopic(Suite.LFS_TOPIC, 1, (short) 3))).all().get();
        }
    }

    private static void write(BenchReport report, BenchSettings settings) throws Exception {
        String stamp = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC)
                .format(Instant.parse(report.date()));
        Files.createDirectories(settings.resultsDir());
        Path json = settings.resultsDir().resolve(stamp + "-" + report.commit() + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        String table = MarkdownTable.render(report);
        MarkdownTable.replaceIn(settings.document(), table);
        System.out.println();
        System.out.println(table);
        Suite.log("wrote %s and the table in %s", json, settings.document());
    }
}
