package org.kafscale.proxy.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.kafscale.proxy.bench.report.BenchReport;
import org.kafscale.proxy.bench.report.MarkedSection;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.report.VirtualClusterTable;
import org.kafscale.proxy.testkit.SecretKeyStores;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The virtual-cluster comparison (issue 28), run by {@code scripts/bench-tenants.sh}: the bench's
 * cluster, two proxies of this build in the same advertise mode, both with SASL (SCRAM-SHA-512) on
 * their listener and the same user, one without a gateway file and one whose gateway file places
 * that user in a virtual cluster with a topic prefix, and the bench's produce and consume
 * throughput workloads through both in alternating rounds ({@link VirtualClusterCost}).
 *
 * <p>The tenant's clients call the topic {@code bench-throughput}, as the other proxy's do; the
 * real cluster holds it as {@code bench-tenant.bench-throughput}, created here beside the
 * unprefixed one with the same configuration. After the rounds the run checks that the tenant's
 * records are in the prefixed topic, so a gateway file that did not apply cannot pass for a
 * cheap one.
 *
 * <p>Settings: the bench's ({@code bench.rounds}, {@code bench.warmupRounds},
 * {@code bench.produceSeconds}, {@code bench.proxyJvmOptions}, {@code bench.resultsDir},
 * {@code bench.document}, {@code bench.commit}, {@code bench.command}; see {@link BenchSettings}),
 * and {@code bench.tenants.mode}, the proxies' advertise mode ({@code single}, the default).
 * Writes {@code <resultsDir>/tenants-<date>-<commit>.json} and the section {@code bench:tenants}
 * of the document.
 *
 * <p>With {@code bench.gateway.feature=encryption} ({@code scripts/bench-encryption.sh}, issue
 * 29) the second proxy's gateway file holds an encryption rule instead (a fresh PKCS#12 KEK,
 * the user allowed), covering the topic {@value #ENCRYPTED_TOPIC} its clients use, made beside
 * {@code bench-throughput}; the run checks its records carry the envelope at the broker, and
 * writes {@code encryption-<date>-<commit>.json} and the section {@code bench:encryption}.
 */
public final class VirtualClusterCostMain {
    private static final String BUCKET = "bench-lfs";
    static final String ENCRYPTED_TOPIC = "bench-encrypted";

    private VirtualClusterCostMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.fromSystemProperties();
        String mode = System.getProperty("bench.tenants.mode", "single");
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Path logs = settings.resultsDir().resolve("logs").resolve("tenants").toAbsolutePath();
        Files.createDirectories(logs);
        BenchTenant tenant = BenchTenant.forThisRun();
        Path credentials = Files.writeString(logs.resolve("sasl-users"), tenant.credentialsLine() + "\n");
        boolean encryption = "encryption".equals(System.getProperty("bench.gateway.feature", "virtual-cluster"));
        Path gateway = Files.writeString(logs.resolve("gateway.yaml"), encryption
                ? encryptionYaml(logs, tenant) : tenant.gatewayYaml());
        List<Row> rows;
        int records;
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of("-Xmx3g", "-XX:+UseG1GC"), ClusterMain.class.getName(),
                List.of(), Map.of(), logs.resolve("cluster.log"), line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(Duration.ofMinutes(3)).split(" ");
            String bootstrap = ready[1];
            S3Target s3 = new S3Target(URI.create(ready[2]), ready[3], ready[4], BUCKET);
            String tenantTopic = encryption ? ENCRYPTED_TOPIC : tenant.realTopic(Suite.THROUGHPUT_TOPIC);
            createTopics(bootstrap, settings.partitions(), List.of(Suite.THROUGHPUT_TOPIC, tenantTopic));
            try (S3Client s3Client = s3.client()) {
                s3Client.createBucket(b -> b.bucket(BUCKET));
            }
            try (ProxyProcess plain = ProxyProcess.start(mode, bootstrap, s3, jvmOptions(settings, "sasl"),
                         tenant.proxySettings(credentials, Optional.empty()), ProxyProcess.Ports.free(), "proxy-sasl",
                         logs);
                 ProxyProcess tenanted = ProxyProcess.start(mode, bootstrap, s3, jvmOptions(settings, feature(encryption)),
                         tenant.proxySettings(credentials, Optional.of(gateway)), ProxyProcess.Ports.free(),
                         "proxy-" + feature(encryption), logs);
                 ProxyCounters plainCounters = ProxyCounters.attach(plain);
                 ProxyCounters tenantCounters = ProxyCounters.attach(tenanted)) {
                Route without = new Route("proxy, " + mode + " mode, SASL, no gateway file", plain.bootstrap(), true,
                        tenant.clientSettings());
                Route with = new Route("proxy, " + mode + " mode, SASL, " + (encryption ? "one encryption rule"
                        : "one virtual cluster"), tenanted.bootstrap(), true, tenant.clientSettings());
                Suite.log("cluster at %s; %s at %s; %s at %s", bootstrap, without.name(), without.bootstrap(),
                        with.name(), with.bootstrap());
                VirtualClusterCost cost = new VirtualClusterCost(settings, without, with,
                        Map.of(without, plainCounters, with, tenantCounters),
                        encryption ? ENCRYPTED_TOPIC : Suite.THROUGHPUT_TOPIC);
                rows = cost.run();
                records = cost.records();
            }
            long tenantRecords = recordsIn(bootstrap, tenantTopic);
            if (tenantRecords == 0) {
                throw new IllegalStateException("no record of the virtual cluster's runs is in " + tenantTopic
                        + ": the gateway file did not apply, so the run compared nothing");
            }
            Suite.log("%s holds %d records: the virtual cluster's runs wrote under its prefix", tenantTopic,
                    tenantRecords);
            if (encryption) {
                requireEnvelope(bootstrap, tenantTopic);
            }
        }
        Map<String, String> described = new LinkedHashMap<>();
        described.put("rounds", settings.rounds() + ", after " + settings.warmupRounds() + " unmeasured");
        described.put("records", settings.recordBytes() + " B, " + records + " a run (~" + settings.produceSeconds()
                + " s of produce)");
        described.put("partitions", settings.partitions() + " (replication 3, acks=all)");
        described.put("proxies", mode + " mode, SASL " + BenchTenant.MECHANISM + " on the listener in both; one with a "
                + (encryption ? "gateway file of one encryption rule (PKCS#12 KEK, AES-256-GCM values) over its "
                + "clients' topic " + ENCRYPTED_TOPIC + ", their principal allowed (decrypted on Fetch)"
                : "gateway file of one virtual cluster (topicPrefix \"" + tenant.topicPrefix() + "\") holding the "
                + "clients' principal"));
        if (!settings.proxyJvmOptions().isEmpty()) {
            described.put("proxy JVM options", String.join(" ", settings.proxyJvmOptions()));
        }
        BenchReport report = new BenchReport(settings.command(), started.toString(), settings.commit(),
                Environment.describe(), described, rows);
        write(report, settings, encryption);
        System.exit(0);
    }

    private static String feature(boolean encryption) {
        return encryption ? "encryption" : "virtual-cluster";
    }

    /** A gateway file of one encryption rule over {@value #ENCRYPTED_TOPIC}, its KEK a fresh key-store file in {@code dir}. */
    private static String encryptionYaml(Path dir, BenchTenant tenant) throws Exception {
        String password = java.util.UUID.randomUUID().toString();
        Path keystore = SecretKeyStores.aesKey(dir.resolve("kek.p12"), "kek-1", password);
        return "encryption:\n"
                + "  - topics: \"" + ENCRYPTED_TOPIC + "\"\n"
                + "    kek: {keystore: \"" + keystore.toAbsolutePath() + "\", password: \"" + password
                + "\", alias: kek-1}\n"
                + "    allow: [\"User:" + tenant.user() + "\"]\n";
    }

    /** A record of {@code topic} read straight from the brokers carries the envelope: the rule applied. */
    private static void requireEnvelope(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.headers().lastHeader("kafscale.enc") == null) {
                        throw new IllegalStateException(topic + " holds a record without the envelope: the rule did"
                                + " not apply, so the run compared nothing");
                    }
                    Suite.log("%s holds ciphertext with the envelope at the broker", topic);
                    return;
                }
            }
            throw new IllegalStateException("no record of " + topic + " was read from the brokers");
        }
    }

    /**
     * {@code bench.proxyJvmOptions} for one of the two proxies: both run in one advertise mode, so
     * {@code {mode}} in them (a flight recording's file name, say) also names which proxy it is,
     * and the second does not overwrite the first's file.
     */
    private static List<String> jvmOptions(BenchSettings settings, String proxy) {
        return settings.proxyJvmOptions().stream().map(o -> o.replace("{mode}", "{mode}-" + proxy)).toList();
    }

    /** The topics of both proxies' clients, as {@code BenchMain} creates the bench's throughput topic. */
    private static void createTopics(String bootstrap, int partitions, List<String> names) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(names.stream().map(name -> BenchMain.bounded(new NewTopic(name, partitions, (short) 3)))
                    .toList()).all().get();
        }
    }

    /** The sum of the end offsets of {@code topic}'s partitions in the real cluster. */
    private static long recordsIn(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get().values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    private static void write(BenchReport report, BenchSettings settings, boolean encryption) throws Exception {
        String stamp = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC)
                .format(Instant.parse(report.date()));
        Files.createDirectories(settings.resultsDir());
        Path json = settings.resultsDir().resolve((encryption ? "encryption-" : "tenants-") + stamp + "-"
                + report.commit() + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        String table = encryption ? VirtualClusterTable.render(report, "One encryption rule", "encryption rule")
                : VirtualClusterTable.render(report);
        MarkedSection section = encryption ? VirtualClusterTable.ENCRYPTION_SECTION : VirtualClusterTable.SECTION;
        section.replaceIn(settings.document(), table);
        System.out.println();
        System.out.println(table);
        Suite.log("wrote %s and the section %s in %s", json, section.name(), settings.document());
    }
}
