package org.kafscale.proxy.bench.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.BrowserCheck;
import org.kafscale.proxy.bench.report.HtmlReport;
import org.kafscale.proxy.bench.report.Timeline;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.FaultyRelay;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;
import org.kafscale.proxy.testkit.S3Server;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The soak with chaos (issue 17): three brokers (replication 3, {@code min.insync.replicas} 2),
 * etcd and an S3 server in this JVM; two proxy replicas in JVMs of their own with capped heaps,
 * one learning the topology from KafScale's etcd keys (kept fresh by a stand-in for KafScale's
 * operator), one from the brokers; per replica an idempotent acks=all producer and a 3-member
 * consumer group; a transactional read-process-write loop ({@link TransactionalLoop}), LFS
 * uploads and downloads ({@link LfsTraffic}) and admin calls ({@link AdminCalls}); and every
 * 20-60 s one chaos event ({@link SoakChaos}), seeded and logged, after which every
 * {@link Workload} must succeed again. At the end it reads the topics directly from the brokers
 * (and the LFS objects from S3) and prints each check as PASS or FAIL
 * ({@link Checks}), writes JSON and a self-contained HTML report with charts, opens the report in
 * headless Chromium, and exits 1 if anything failed.
 */
public final class SoakMain {
    private static final String TOPIC = "soak-events";
    /** The transactional loop's output. */
    private static final String EOS_OUTPUT = "soak-eos-out";
    private static final String LFS_TOPIC = "soak-lfs";
    private static final String BUCKET = "soak-lfs";
    private static final List<String> TOPICS = List.of(TOPIC, EOS_OUTPUT, LFS_TOPIC);
    private static final int PARTITIONS = 12;
    private static final int LFS_PARTITIONS = 3;
    private static final Duration SNAPSHOT_EVERY = Duration.ofSeconds(2);
    private static final Duration CATCH_UP = Duration.ofMinutes(2);

    private SoakMain() {
    }

    public static void main(String[] args) throws Exception {
        SoakSettings settings = SoakSettings.fromSystemProperties();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        String stamp = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC).format(started);
        Path logs = settings.resultsDir().resolve("logs").resolve("soak-" + stamp);
        Files.createDirectories(logs);
        log("seed %d, %d s, chaos every %d-%d s, %d records/s per producer; logs in %s", settings.seed(),
                settings.duration().toSeconds(), settings.chaosMin().toSeconds(), settings.chaosMax().toSeconds(),
                settings.recordsPerSecond(), logs);
        Timeline timeline;
        Checks checks = new Checks();
        List<Chaos.Event> events;
        Map<String, Object> report = new LinkedHashMap<>();
        Path s3Files = Files.createTempDirectory("soak-s3-");
        try (KafkaCluster cluster = KafkaCluster.start(3, minInsync(2)); EtcdProcess etcd = EtcdProcess.startNew();
                S3Server s3Server = S3Server.startOnDisk(s3Files)) {
            createTopics(cluster.admin());
            s3Server.createBucket(BUCKET);
            S3Target s3 = new S3Target(s3Server.endpoint(), s3Server.accessKey(), s3Server.secretKey(), BUCKET);
            ScheduledExecutorService background = Executors.newScheduledThreadPool(2);
            // The fault relay sits on the etcd replica's path to one broker: the snapshot lists it there.
            int relayed = cluster.brokerIds().get(0);
            try (FaultyRelay relay = FaultyRelay.start(cluster.brokerAddress(relayed));
                    KafscaleEtcdWriter operator = KafscaleEtcdWriter.connect(etcd.endpoint())) {
                Map<Integer, String> throughRelay = Map.of(relayed, "127.0.0.1:" + relay.port());
                // KafScale's operator stand-in: the snapshot and partition leases as the cluster has them now.
                Runnable publish = () -> {
                    try {
                        operator.publishSnapshot(cluster, TOPICS, throughRelay);
                        operator.publishPartitionLeases(cluster, TOPICS);
                    } catch (RuntimeException e) {
                        // etcd down (chaos) or a broker mid-restart: the next round publishes
                    }
                };
                publish.run();
                background.scheduleWithFixedDelay(publish, SNAPSHOT_EVERY.toMillis(), SNAPSHOT_EVERY.toMillis(),
                        TimeUnit.MILLISECONDS);
                ProxyReplica etcdReplica = new ProxyReplica("proxy-etcd", "", s3,
                        Map.of(ProxyConfig.ETCD_ENDPOINTS, etcd.endpoint()), logs);
                ProxyReplica kafkaReplica = new ProxyReplica("proxy-kafka", cluster.bootstrapServers(), s3, Map.of(), logs);
                List<ProxyReplica> replicas = List.of(etcdReplica, kafkaReplica);
                List<VerifiedProducer> producers = new ArrayList<>();
                List<GroupMember> members = new ArrayList<>();
                Map<String, GroupMember.Seen> groups = new LinkedHashMap<>();
                try {
                    for (ProxyReplica replica : replicas) {
                        replica.start();
                        producers.add(new VerifiedProducer("producer-" + replica.name(), replica.bootstrap(), TOPIC,
                                settings.recordsPerSecond()));
                        GroupMember.Seen seen = new GroupMember.Seen();
                        groups.put("group-" + replica.name(), seen);
                        for (int m = 0; m < 3; m++) {
                            members.add(new GroupMember("member-" + m + "-" + replica.name(), replica.bootstrap(),
                                    "group-" + replica.name(), TOPIC, seen));
                        }
                    }
                    TransactionalLoop eos = new TransactionalLoop("eos-" + kafkaReplica.name(), kafkaReplica.bootstrap(),
                            TOPIC, EOS_OUTPUT);
                    LfsTraffic lfs = new LfsTraffic("lfs-" + etcdReplica.name(), etcdReplica.lfs(), LFS_TOPIC,
                            settings.seed());
                    List<String> groupNames = new ArrayList<>(groups.keySet());
                    groupNames.add(TransactionalLoop.GROUP);
                    AdminCalls admin = new AdminCalls(etcdReplica.bootstrap(), TOPICS, PARTITIONS, groupNames);
                    List<Workload> workloads = new ArrayList<>(producers);
                    workloads.add(eos);
                    workloads.add(lfs);
                    workloads.addAll(admin.workloads());
                    // The charts' time starts with the traffic, not with the cluster's start-up.
                    timeline = new Timeline();
                    producers.forEach(VerifiedProducer::start);
                    members.forEach(GroupMember::start);
                    eos.start();
                    lfs.start();
                    admin.start();
                    TrafficSampler sampler = new TrafficSampler(timeline, producers, groups, replicas, List.of(
                            new TrafficSampler.Rate("Transactional loop records committed per second", "records/s",
                                    eos.name(), eos::committedRecords),
                            new TrafficSampler.Rate("LFS KiB uploaded per second", "KiB/s", lfs.name(),
                                    () -> lfs.bytesUploaded() / 1024),
                            new TrafficSampler.Rate("Admin calls succeeded per second", "calls/s", "admin",
                                    admin::succeededTotal)));
                    background.scheduleAtFixedRate(sampler::sample, 1, 1, TimeUnit.SECONDS);

                    ChaosRun run = runChaos(settings, timeline, new SoakChaos(cluster, etcd, replicas, TOPIC, relay,
                            relayed), workloads);
                    events = run.events();
                    log("chaos over; stopping the producers");
                    for (VerifiedProducer producer : producers) {
                        producer.close();
                    }
                    long acked = producers.stream().mapToLong(p -> p.acked().size()).sum();
                    awaitCatchUp(groups, acked);
                    awaitTransactionalCatchUp(cluster.admin());
                    eos.close();
                    lfs.close();
                    lfs.drainDownloads(Duration.ofMinutes(1));
                    admin.close();
                    for (GroupMember member : members) {
                        member.close();
                    }
                    Map<Integer, Map<Long, String>> topicLog = readLog(cluster.bootstrapServers(), TOPIC, PARTITIONS,
                            "read_uncommitted");
                    checks.chaosHappened(events);
                    Duration bound = settings.recoveryBound();
                    checks.recoveredAfterEveryEvent("producers", "producer-", events, run.recovery(), bound, "");
                    checks.noAcknowledgedRecordLost(producers, topicLog);
                    checks.noDuplicates(topicLog);
                    checks.perPartitionOrder(topicLog);
                    groups.forEach((name, seen) -> checks.everyGroupSawEveryRecord(name, seen, producers));
                    checks.noConsumerStuck(members, GroupMember.SESSION_TIMEOUT.multipliedBy(2));
                    checks.exactlyOnce(topicLog, readLog(cluster.bootstrapServers(), EOS_OUTPUT, PARTITIONS,
                            "read_committed"), String.format(Locale.ROOT,
                            "%d transactions committed, %d aborted and retried, %d producers replaced (fenced or unabortable)",
                            eos.committedTransactions(), eos.aborted(), eos.producersReplaced()));
                    checks.recoveredAfterEveryEvent("the transactional loop", "eos-", events, run.recovery(), bound, "");
                    try (S3Client client = s3.client()) {
                        LfsAudit audit = LfsAudit.of(readLog(cluster.bootstrapServers(), LFS_TOPIC, LFS_PARTITIONS,
                                "read_uncommitted"), LFS_TOPIC, client, BUCKET);
                        checks.lfsObjectsMatchRecords(audit, lfs);
                    }
                    checks.lfsDownloadsVerified(lfs);
                    checks.recoveredAfterEveryEvent("LFS uploads", "lfs-", events, run.recovery(), bound, "");
                    checks.recoveredAfterEveryEvent("every admin call", "admin ", events, run.recovery(), bound,
                            adminCounts(admin));
                    checks.resourcesFlat(replicas);
                    report.put("acknowledged", acked);
                    report.put("failedSends", producers.stream().mapToLong(VerifiedProducer::failed).sum());
                    report.put("recoverySeconds", events.stream().map(e -> run.recovery().get(e)).toList());
                    report.put("transactional", Map.of("committedTransactions", eos.committedTransactions(),
                            "committedRecords", eos.committedRecords(), "aborted", eos.aborted(),
                            "producersReplaced", eos.producersReplaced()));
                    report.put("lfs", Map.of("uploaded", lfs.uploaded().size(), "failedUploads", lfs.failures(),
                            "bytesUploaded", lfs.bytesUploaded(), "downloadsVerified", lfs.downloadsVerified(),
                            "downloadErrors", lfs.downloadErrors()));
                    report.put("admin", adminCounts(admin));
                } finally {
                    background.shutdownNow();
                    for (ProxyReplica replica : replicas) {
                        replica.close();
                    }
                }
                checks.noLeak(replicas.stream().map(ProxyReplica::log).toList());
            }
        } finally {
            deleteTree(s3Files);
        }
        checks.verdicts().forEach(v -> log("%s", v.line()));
        report.put("command", "scripts/soak.sh");
        report.put("date", started.toString());
        report.put("commit", settings.commit());
        report.put("seed", settings.seed());
        report.put("seconds", settings.duration().toSeconds());
        report.put("events", events);
        report.put("verdicts", checks.verdicts());
        Path json = settings.resultsDir().resolve("soak-" + stamp + "-" + settings.commit() + ".json");
        Path html = settings.resultsDir().resolve("soak-" + stamp + "-" + settings.commit() + ".html");
        List<Map.Entry<String, String>> summary = new ArrayList<>();
        summary.add(Map.entry("seed", Long.toString(settings.seed())));
        checks.verdicts().forEach(v -> summary.add(Map.entry(v.name(), (v.passed() ? "PASS " : "FAIL ") + v.detail())));
        HtmlReport.write(html, "Soak " + started + ", commit " + settings.commit(), summary, timeline);
        boolean rendered = checkRendering(html, logs.resolve("report.png"));
        report.put("reportRenders", rendered);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), report);
        log("wrote %s and %s", json, html);
        System.exit(checks.allPassed() && rendered ? 0 : 1);
    }

    /** The chaos events, and for each how long every workload took to succeed again (seconds, by name). */
    record ChaosRun(List<Chaos.Event> events, Map<Chaos.Event, Map<String, Double>> recovery) {
    }

    /**
     * One chaos event after another until the soak's time is up; after each, how long until every
     * workload succeeded again (recorded for the recovery checks, and the next gap starts only then).
     */
    private static ChaosRun runChaos(SoakSettings settings, Timeline timeline, SoakChaos actions,
                                     List<Workload> workloads) throws InterruptedException {
        long startNanos = System.nanoTime();
        long endNanos = startNanos + settings.duration().toNanos();
        Chaos chaos = new Chaos(settings.seed(), actions);
        Map<Chaos.Event, Map<String, Double>> recovery = new HashMap<>();
        java.util.function.DoubleSupplier now = () -> (System.nanoTime() - startNanos) / 1e9;
        while (true) {
            long gap = chaos.nextGapSeconds(settings.chaosMin().toSeconds(), settings.chaosMax().toSeconds());
            if (System.nanoTime() + TimeUnit.SECONDS.toNanos(gap) >= endNanos) {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, endNanos - System.nanoTime()));
                break;
            }
            TimeUnit.SECONDS.sleep(gap);
            double at = now.getAsDouble();
            Chaos.Event event = chaos.next(at, now,
                    kind -> timeline.event(kind.name().toLowerCase(Locale.ROOT).replace('_', ' ')));
            Map<String, Double> recovered = awaitRecovery(workloads, System.nanoTime(),
                    settings.recoveryBound().multipliedBy(2));
            recovery.put(event, recovered);
            double slowest = recovered.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
            String late = recovered.entrySet().stream().filter(e -> e.getValue() > 10).map(e ->
                    String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue())).sorted().toList().toString();
            log("%6.0f s %s %s (%s), all workloads recovered in %.1f s %s", at, event.kind(), event.target(),
                    event.outcome(), slowest, late);
        }
        return new ChaosRun(chaos.events(), recovery);
    }

    /**
     * Seconds from {@code sinceNanos} until each workload succeeded after it (by name); infinite
     * for one that did not within {@code wait}.
     */
    private static Map<String, Double> awaitRecovery(List<Workload> workloads, long sinceNanos, Duration wait)
            throws InterruptedException {
        Map<String, Double> seconds = new LinkedHashMap<>();
        long deadline = sinceNanos + wait.toNanos();
        while (true) {
            for (Workload workload : workloads) {
                long last = workload.lastSuccessNanos();
                if (!seconds.containsKey(workload.name()) && last > sinceNanos) {
                    seconds.put(workload.name(), (last - sinceNanos) / 1e9);
                }
            }
            if (seconds.size() == workloads.size() || System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(100);
        }
        workloads.forEach(w -> seconds.putIfAbsent(w.name(), Double.POSITIVE_INFINITY));
        return seconds;
    }

    /** Until the transactional loop's group has committed the input's end offsets (the loop processed it all). */
    private static void awaitTransactionalCatchUp(Admin direct) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        direct.listOffsets(latest).all().get().forEach((tp, info) -> end.put(tp, info.offset()));
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, OffsetAndMetadata> committed = direct.listConsumerGroupOffsets(TransactionalLoop.GROUP)
                    .partitionsToOffsetAndMetadata().get();
            if (end.entrySet().stream().allMatch(e -> committed.get(e.getKey()) != null
                    && committed.get(e.getKey()).offset() >= e.getValue())) {
                return;
            }
            Thread.sleep(500);
        }
        log("the transactional loop did not catch up within %d s", CATCH_UP.toSeconds());
    }

    private static String adminCounts(AdminCalls admin) {
        List<String> counts = new ArrayList<>();
        for (AdminCalls.Call call : AdminCalls.Call.values()) {
            counts.add(call.apiName + " " + admin.succeeded(call) + " ok, " + admin.failed(call) + " errors");
        }
        return String.join(", ", counts);
    }

    private static void createTopics(Admin admin) throws Exception {
        Map<String, String> minInsync = Map.of("min.insync.replicas", "2");
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3).configs(minInsync),
                new NewTopic(EOS_OUTPUT, PARTITIONS, (short) 3).configs(minInsync),
                new NewTopic(LFS_TOPIC, LFS_PARTITIONS, (short) 3).configs(minInsync))).all().get();
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static void awaitCatchUp(Map<String, GroupMember.Seen> groups, long acked) throws InterruptedException {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (System.nanoTime() < deadline && groups.values().stream().anyMatch(g -> distinct(g) < acked)) {
            Thread.sleep(500);
        }
    }

    private static long distinct(GroupMember.Seen seen) {
        return seen.records.values().stream().mapToLong(Map::size).sum();
    }

    /**
     * Every record of a topic, straight from the brokers: partition, then offset, then value
     * ({@code isolation} read_committed for the transactional output).
     */
    static Map<Integer, Map<Long, String>> readLog(String bootstrap, String topic, int partitionCount,
                                                   String isolation) {
        Map<Integer, Map<Long, String>> log = new HashMap<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < partitionCount; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = reader.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (partitions.stream().anyMatch(p -> reader.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                reader.poll(Duration.ofMillis(500)).forEach(r ->
                        log.computeIfAbsent(r.partition(), k -> new HashMap<>()).put(r.offset(), r.value()));
            }
        }
        return log;
    }

    /** Opens the report in headless Chromium (scripts/soak.sh installs it) and checks its charts were drawn. */
    private static boolean checkRendering(Path html, Path screenshot) {
        if (!Files.isExecutable(BrowserCheck.CHROMIUM)) {
            log("FAIL the report renders: no %s (scripts/ensure-browser.sh installs it)", BrowserCheck.CHROMIUM);
            return false;
        }
        try {
            BrowserCheck.Seen seen = BrowserCheck.open(html, screenshot);
            boolean drawn = seen.chartsDrawn() > 0 && seen.canvases() >= seen.chartsDrawn();
            log("%s the report renders: %d charts drawn, %d canvases (screenshot %s)", drawn ? "PASS" : "FAIL",
                    seen.chartsDrawn(), seen.canvases(), screenshot);
            return drawn;
        } catch (Exception e) {
            log("FAIL the report renders: %s", e);
            return false;
        }
    }

    private static Map<Integer, Map<String, String>> minInsync(int replicas) {
        Map<Integer, Map<String, String>> properties = new HashMap<>();
        for (int broker = 0; broker < 3; broker++) {
            properties.put(broker, Map.of("min.insync.replicas", Integer.toString(replicas)));
        }
        return properties;
    }

    static void log(String format, Object... args) {
        System.out.println("[soak] " + String.format(Locale.ROOT, format, args));
        System.out.flush();
    }
}
