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
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.bench.proxy.S3Target;
import org.kafscale.proxy.bench.report.BrowserCheck;
import org.kafscale.proxy.bench.report.HtmlReport;
import org.kafscale.proxy.bench.report.Timeline;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The soak with chaos (issue 17): three brokers (replication 3, {@code min.insync.replicas} 2),
 * etcd and an S3 server in this JVM; two proxy replicas in JVMs of their own with capped heaps,
 * one learning the topology from KafScale's etcd keys (kept fresh by a stand-in for KafScale's
 * operator), one from the brokers; per replica an idempotent acks=all producer and a 3-member
 * consumer group; and every 20-60 s one chaos event ({@link SoakChaos}), seeded and logged. At
 * the end it reads the topic directly from the brokers and prints each check as PASS or FAIL
 * ({@link Checks}), writes JSON and a self-contained HTML report with charts, opens the report in
 * headless Chromium, and exits 1 if anything failed.
 */
public final class SoakMain {
    private static final String TOPIC = "soak-events";
    private static final int PARTITIONS = 12;
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
        try (KafkaCluster cluster = KafkaCluster.start(3, minInsync(2)); EtcdProcess etcd = EtcdProcess.startNew();
                S3Server s3Server = S3Server.start()) {
            cluster.admin().createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3)
                    .configs(Map.of("min.insync.replicas", "2")))).all().get();
            s3Server.createBucket("soak-lfs");
            S3Target s3 = new S3Target(s3Server.endpoint(), s3Server.accessKey(), s3Server.secretKey(), "soak-lfs");
            ScheduledExecutorService background = Executors.newScheduledThreadPool(2);
            try (KafscaleEtcdWriter operator = KafscaleEtcdWriter.connect(etcd.endpoint())) {
                // KafScale's operator stand-in: the snapshot and partition leases as the cluster has them now.
                Runnable publish = () -> {
                    try {
                        operator.publishSnapshot(cluster, List.of(TOPIC));
                        operator.publishPartitionLeases(cluster, List.of(TOPIC));
                    } catch (RuntimeException e) {
                        // etcd down (chaos) or a broker mid-restart: the next round publishes
                    }
                };
                publish.run();
                background.scheduleWithFixedDelay(publish, SNAPSHOT_EVERY.toMillis(), SNAPSHOT_EVERY.toMillis(),
                        TimeUnit.MILLISECONDS);
                List<ProxyReplica> replicas = List.of(
                        new ProxyReplica("proxy-etcd", "", s3, Map.of(ProxyConfig.ETCD_ENDPOINTS, etcd.endpoint()), logs),
                        new ProxyReplica("proxy-kafka", cluster.bootstrapServers(), s3, Map.of(), logs));
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
                    // The charts' time starts with the traffic, not with the cluster's start-up.
                    timeline = new Timeline();
                    producers.forEach(VerifiedProducer::start);
                    members.forEach(GroupMember::start);
                    TrafficSampler sampler = new TrafficSampler(timeline, producers, groups, replicas);
                    background.scheduleAtFixedRate(sampler::sample, 1, 1, TimeUnit.SECONDS);

                    events = runChaos(settings, timeline, new SoakChaos(cluster, etcd, replicas, TOPIC), producers,
                            checks);
                    log("chaos over; stopping the producers");
                    for (VerifiedProducer producer : producers) {
                        producer.close();
                    }
                    long acked = producers.stream().mapToLong(p -> p.acked().size()).sum();
                    awaitCatchUp(groups, acked);
                    for (GroupMember member : members) {
                        member.close();
                    }
                    Map<Integer, Map<Long, String>> topicLog = readLog(cluster.bootstrapServers());
                    checks.noAcknowledgedRecordLost(producers, topicLog);
                    checks.noDuplicates(topicLog);
                    checks.perPartitionOrder(topicLog);
                    groups.forEach((name, seen) -> checks.everyGroupSawEveryRecord(name, seen, producers));
                    checks.noConsumerStuck(members, GroupMember.SESSION_TIMEOUT.multipliedBy(2));
                    checks.resourcesFlat(replicas);
                    report.put("acknowledged", acked);
                    report.put("failedSends", producers.stream().mapToLong(VerifiedProducer::failed).sum());
                } finally {
                    background.shutdownNow();
                    for (ProxyReplica replica : replicas) {
                        replica.close();
                    }
                }
                checks.noLeak(replicas.stream().map(ProxyReplica::log).toList());
            }
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

    /**
     * One chaos event after another until the soak's time is up; after each, how long until every
     * producer had a record acknowledged again (recorded for the recovery check, and the next gap
     * starts only then).
     */
    private static List<Chaos.Event> runChaos(SoakSettings settings, Timeline timeline, SoakChaos actions,
                                              List<VerifiedProducer> producers, Checks checks) throws InterruptedException {
        long startNanos = System.nanoTime();
        long endNanos = startNanos + settings.duration().toNanos();
        Chaos chaos = new Chaos(settings.seed(), actions);
        Map<Chaos.Event, Double> recovery = new HashMap<>();
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
            long undone = System.nanoTime();
            double recovered = awaitAcks(producers, undone, settings.recoveryBound().multipliedBy(2));
            recovery.put(event, recovered);
            log("%6.0f s %s %s (%s), recovered in %.1f s", at, event.kind(), event.target(), event.outcome(), recovered);
        }
        checks.chaosHappened(chaos.events());
        checks.recoveredAfterEveryEvent(chaos.events(), recovery, settings.recoveryBound());
        return chaos.events();
    }

    /** Seconds from {@code sinceNanos} until every producer had an acknowledgement after it; infinite past the wait. */
    private static double awaitAcks(List<VerifiedProducer> producers, long sinceNanos, Duration wait)
            throws InterruptedException {
        long deadline = sinceNanos + wait.toNanos();
        while (System.nanoTime() < deadline) {
            if (producers.stream().allMatch(p -> p.lastAckNanos() > sinceNanos)) {
                long latest = producers.stream().mapToLong(VerifiedProducer::lastAckNanos).min().orElse(sinceNanos);
                return Math.max(0, (latest - sinceNanos) / 1e9);
            }
            Thread.sleep(100);
        }
        return Double.POSITIVE_INFINITY;
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

    /** Every record of the topic, straight from the brokers: partition, then offset, then value. */
    private static Map<Integer, Map<Long, String>> readLog(String bootstrap) {
        Map<Integer, Map<Long, String>> log = new HashMap<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
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
