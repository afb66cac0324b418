package org.kafscale.proxy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.bench.cluster.ClusterMain;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.proxy.ProxyProcess;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.BenchReport;
import org.kafscale.proxy.bench.report.MarkedSection;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.report.VirtualClusterTable;
import org.kafscale.proxy.bench.workload.LfsUpload;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What reading large messages through the proxy costs (issue 32), run by
 * {@code scripts/bench-lfs-read.sh}: the bench's cluster and S3 server, one proxy of this build
 * resolving the envelopes of {@value #TOPIC} on Fetch, {@code bench.lfsRead.records} payloads of
 * {@code bench.lfsRead.mib} MiB each produced through {@code /lfs/produce}. In alternating rounds
 * the same payloads are read two ways, each checked against its SHA-256 as it arrives: by a plain
 * Java consumer through the proxy (which fetches each object from S3, verifies it and puts it in
 * the record), and by GETs of the same objects straight from the S3 server, one after another as
 * the consumer reads them. The ratio is what the proxy's resolution costs against the least any
 * reader of those objects pays.
 *
 * <p>The consumer runs with kafka-clients' defaults (a partition's {@code max.partition.fetch.bytes}
 * of 1 MiB, so the proxy answers each Fetch with the one record it must always give), as a client
 * that knows nothing of LFS would. Writes {@code <resultsDir>/lfs-read-<date>-<commit>.json} and
 * the section {@code bench:lfs-read} of the document.
 */
public final class LfsReadCostMain {
    static final String TOPIC = "bench-lfs-read";
    private static final String BUCKET = "bench-lfs";
    private static final int MIB = 1 << 20;
    static final MarkedSection SECTION = new MarkedSection("bench:lfs-read");

    private LfsReadCostMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.fromSystemProperties();
        int records = Integer.getInteger("bench.lfsRead.records", 12);
        int mib = Integer.getInteger("bench.lfsRead.mib", 8);
        int rounds = Integer.getInteger("bench.lfsRead.rounds", 5);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Path logs = settings.resultsDir().resolve("logs").resolve("lfs-read").toAbsolutePath();
        Files.createDirectories(logs);
        List<Double> s3Rates = new ArrayList<>();
        List<Double> proxyRates = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        List<Double> threadCpu = new ArrayList<>();
        List<Double> allocated = new ArrayList<>();
        try (ChildJvm cluster = ChildJvm.start("cluster", List.of("-Xmx3g", "-XX:+UseG1GC"), ClusterMain.class.getName(),
                List.of(), Map.of(), logs.resolve("cluster.log"), line -> line.startsWith(ClusterMain.READY), true)) {
            String[] ready = cluster.awaitLine(Duration.ofMinutes(3)).split(" ");
            String bootstrap = ready[1];
            S3Target s3 = new S3Target(URI.create(ready[2]), ready[3], ready[4], BUCKET);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get();
            }
            try (S3Client s3Client = s3.client();
                 ProxyProcess proxy = ProxyProcess.start("single", bootstrap, s3, settings.proxyJvmOptions(),
                         Map.of("KAFSCALE_LFS_PROXY_FETCH_RESOLVE_TOPICS", TOPIC), logs);
                 ProxyCounters counters = ProxyCounters.attach(proxy)) {
                List<String> digests = produce(new LfsUpload(proxy.lfs(), s3Client, BUCKET), records, mib);
                List<String> keys = envelopeKeys(bootstrap, records);
                for (int round = 0; round < rounds + settings.warmupRounds(); round++) {
                    boolean measured = round >= settings.warmupRounds();
                    // The order alternates, so neither way always reads from a warm S3 server.
                    double direct = 0;
                    if (round % 2 == 0) {
                        direct = fromS3(s3Client, keys, digests);
                    }
                    // The proxy's own byte counters count Kafka traffic of the bench's instrumented clients
                    // only; this consumer's bytes are the payloads it checked.
                    ProxyCounters.Snapshot before = counters.begin();
                    Read through = throughProxy(proxy.bootstrap(), digests);
                    ProxyCounters.Snapshot after = counters.end();
                    if (round % 2 == 1) {
                        direct = fromS3(s3Client, keys, digests);
                    }
                    Suite.log("round %d%s: S3 %.1f MiB/s, through the proxy %.1f MiB/s", round,
                            measured ? "" : " (unmeasured)", direct, through.mibPerSecond());
                    if (measured) {
                        s3Rates.add(direct);
                        proxyRates.add(through.mibPerSecond());
                        cpu.add((after.cpuNanos() - before.cpuNanos()) / 1e6 / through.mib());
                        threadCpu.add((after.threadCpuNanos() - before.threadCpuNanos()) / 1e6 / through.mib());
                        allocated.add((after.allocatedBytes() - before.allocatedBytes()) / 1024.0 / through.mib());
                    }
                }
            }
        }
        String workload = "Consume " + mib + " MiB records";
        List<Row> rows = List.of(
                Row.compared(workload, "throughput", "MiB/s", s3Rates, proxyRates, List.of(), null),
                Row.proxyOnly("Proxy CPU, resolving, whole process", "CPU per MiB proxied", "ms/MiB", cpu, List.of(),
                        null),
                Row.proxyOnly("Proxy CPU, resolving, proxy threads (no JIT, no GC)", "CPU per MiB proxied", "ms/MiB",
                        threadCpu, List.of(), null),
                Row.proxyOnly("Proxy allocation, resolving", "heap allocated per MiB proxied", "KiB/MiB", allocated,
                        List.of(), null));
        Map<String, String> described = new LinkedHashMap<>();
        described.put("rounds", rounds + ", after " + settings.warmupRounds() + " unmeasured");
        described.put("records", records + " of " + mib + " MiB, random bytes, produced through /lfs/produce, one "
                + "partition (replication 3)");
        described.put("readers", "a Java consumer through the proxy (kafka-clients defaults), the proxy resolving "
                + TOPIC + "; against GETs of the same objects from the S3 server; both check every SHA-256");
        BenchReport report = new BenchReport("scripts/bench-lfs-read.sh", started.toString(), settings.commit(),
                Environment.describe(), described, rows);
        write(report, settings);
        System.exit(0);
    }

    /** {@code records} random payloads produced through the proxy's LFS API; their SHA-256s in order. */
    private static List<String> produce(LfsUpload upload, int records, int mib) throws Exception {
        Random random = new Random(32);
        List<String> digests = new ArrayList<>();
        byte[] payload = new byte[mib * MIB];
        for (int i = 0; i < records; i++) {
            random.nextBytes(payload);
            upload.throughProxy(TOPIC, payload);
            digests.add(sha256(payload));
        }
        Suite.log("produced %d payloads of %d MiB through /lfs/produce", records, mib);
        return digests;
    }

    /** The S3 keys of the envelopes the brokers hold, in offset order: what a direct reader would GET. */
    private static List<String> envelopeKeys(String bootstrap, int records) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<String> keys = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(bootstrap, records)) {
            JsonNode envelope = json.readTree(record.value());
            if (!envelope.has("kfs_lfs")) {
                throw new IllegalStateException("offset " + record.offset() + " of " + TOPIC
                        + " at the broker is no envelope: the run would compare nothing");
            }
            keys.add(envelope.get("key").asText());
        }
        return keys;
    }

    /** MiB/s of GETs of {@code keys} from the S3 server, one after another, each checked. */
    private static double fromS3(S3Client s3, List<String> keys, List<String> digests) throws Exception {
        long bytes = 0;
        long start = System.nanoTime();
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            byte[] payload = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
            check(i, payload, digests);
            bytes += payload.length;
        }
        return bytes / (double) MIB / ((System.nanoTime() - start) / 1e9);
    }

    /** What one read through the proxy moved, and how fast. */
    private record Read(double mib, double mibPerSecond) {
    }

    /** A fresh consumer reading every record through the proxy from the start, each checked. */
    private static Read throughProxy(String bootstrap, List<String> digests) throws Exception {
        long start = System.nanoTime();
        long bytes = 0;
        List<ConsumerRecord<byte[], byte[]>> read = readAll(bootstrap, digests.size());
        for (int i = 0; i < read.size(); i++) {
            check(i, read.get(i).value(), digests);
            bytes += read.get(i).value().length;
        }
        double mib = bytes / (double) MIB;
        return new Read(mib, mib / ((System.nanoTime() - start) / 1e9));
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, int records) {
        TopicPartition partition = new TopicPartition(TOPIC, 0);
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (read.size() < records) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("read " + read.size() + " of " + records + " records of " + TOPIC
                            + " from " + bootstrap + " in 3 minutes");
                }
                consumer.poll(Duration.ofMillis(500)).forEach(read::add);
            }
        }
        return read;
    }

    private static void check(int index, byte[] payload, List<String> digests) throws NoSuchAlgorithmException {
        if (!sha256(payload).equals(digests.get(index))) {
            throw new IllegalStateException("payload " + index + " read back is not the one produced");
        }
    }

    private static String sha256(byte[] payload) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload));
    }

    private static void write(BenchReport report, BenchSettings settings) throws Exception {
        String stamp = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC)
                .format(Instant.parse(report.date()));
        Files.createDirectories(settings.resultsDir());
        Path json = settings.resultsDir().resolve("lfs-read-" + stamp + "-" + report.commit() + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        String table = VirtualClusterTable.render(report, "S3 GET, direct", "Through the proxy, resolved",
                "through the proxy");
        SECTION.replaceIn(settings.document(), table);
        System.out.println();
        System.out.println(table);
        Suite.log("wrote %s and the section %s in %s", json, SECTION.name(), settings.document());
    }
}
