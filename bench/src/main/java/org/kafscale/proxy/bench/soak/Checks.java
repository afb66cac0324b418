package org.kafscale.proxy.bench.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The soak's verdicts, each PASS or FAIL with what it found. The log is read directly from the
 * brokers at the end ({@code log}: every record of the topic by partition and offset), so that
 * what the proxy did is judged by what the brokers hold, not by what it says.
 */
final class Checks {
    /** One verdict. */
    record Verdict(String name, boolean passed, String detail) {
        String line() {
            return (passed ? "PASS " : "FAIL ") + name + ": " + detail;
        }
    }

    private final List<Verdict> verdicts = new ArrayList<>();

    List<Verdict> verdicts() {
        return List.copyOf(verdicts);
    }

    boolean allPassed() {
        return verdicts.stream().allMatch(Verdict::passed);
    }

    private void add(String name, boolean passed, String detail) {
        verdicts.add(new Verdict(name, passed, detail));
    }

    /** Every acknowledged record is in the log, at the partition and offset it was acknowledged at. */
    void noAcknowledgedRecordLost(List<VerifiedProducer> producers, Map<Integer, Map<Long, String>> log) {
        long acked = 0;
        List<String> missing = new ArrayList<>();
        for (VerifiedProducer producer : producers) {
            for (var ack : producer.acked().entrySet()) {
                acked++;
                String expected = producer.name() + ":" + ack.getKey();
                String found = log.getOrDefault(ack.getValue().partition(), Map.of()).get(ack.getValue().offset());
                if (!expected.equals(found) && missing.size() < 5) {
                    missing.add(expected + " at " + ack.getValue() + " (log has " + found + ")");
                } else if (!expected.equals(found)) {
                    missing.add("");
                }
            }
        }
        add("no acknowledged record lost", missing.isEmpty(), missing.isEmpty() ? acked + " acknowledged, all in the log"
                : missing.size() + " of " + acked + " missing, e.g. " + String.join("; ", missing.subList(0,
                Math.min(5, missing.size()))));
    }

    /** No record of an idempotent producer is in the log twice. */
    void noDuplicates(Map<Integer, Map<Long, String>> log) {
        Map<String, Integer> times = new HashMap<>();
        log.values().forEach(p -> p.values().forEach(v -> times.merge(v, 1, Integer::sum)));
        List<String> twice = times.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).limit(5).toList();
        long count = times.values().stream().filter(n -> n > 1).count();
        add("no duplicate from an idempotent producer", count == 0,
                count == 0 ? times.size() + " records, each once" : count + " records more than once, e.g. " + twice);
    }

    /** Within each partition, each producer's records are in the order it sent them. */
    void perPartitionOrder(Map<Integer, Map<Long, String>> log) {
        List<String> disorder = new ArrayList<>();
        log.forEach((partition, records) -> {
            Map<String, Long> lastSeq = new HashMap<>();
            records.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(r -> {
                String[] parts = r.getValue().split(":");
                long seq = Long.parseLong(parts[1]);
                Long before = lastSeq.put(parts[0], seq);
                if (before != null && before >= seq && disorder.size() < 5) {
                    disorder.add("partition " + partition + " offset " + r.getKey() + ": " + parts[0] + " " + seq
                            + " after " + before);
                }
            });
        });
        add("per-partition order", disorder.isEmpty(), disorder.isEmpty() ? "every producer's records in send order"
                : String.join("; ", disorder));
    }

    /** Each consumer group was given every acknowledged record. */
    void everyGroupSawEveryRecord(String group, GroupMember.Seen seen, List<VerifiedProducer> producers) {
        Map<Integer, Map<Long, String>> given = new HashMap<>();
        seen.records.forEach((partition, records) -> given.put(partition.partition(), records));
        long expected = 0;
        long missing = 0;
        for (VerifiedProducer producer : producers) {
            for (var ack : producer.acked().values()) {
                expected++;
                if (!given.getOrDefault(ack.partition(), Map.of()).containsKey(ack.offset())) {
                    missing++;
                }
            }
        }
        add("group " + group + " consumed every acknowledged record", missing == 0,
                (expected - missing) + " of " + expected + " given to it");
    }

    void noConsumerStuck(List<GroupMember> members, Duration bound) {
        Duration longest = members.stream().map(GroupMember::longestStuck).max(Duration::compareTo).orElse(Duration.ZERO);
        add("no consumer stuck longer than twice its session timeout", longest.compareTo(bound) <= 0,
                String.format(Locale.ROOT, "longest wait with records pending %.1f s (bound %d s)",
                        longest.toMillis() / 1000.0, bound.toSeconds()));
    }

    /** No Netty leak report in any replica's log (they run at paranoid level). */
    void noLeak(List<Path> logs) throws IOException {
        long leaks = 0;
        for (Path log : logs) {
            try (Stream<String> lines = Files.lines(log)) {
                leaks += lines.filter(l -> l.contains("LEAK:")).count();
            }
        }
        add("no leak", leaks == 0, leaks == 0 ? "no LEAK line in the replicas' logs (paranoid detection)"
                : leaks + " LEAK lines in the replicas' logs");
    }

    /**
     * Heap after a collection, direct memory, file descriptors and threads of each replica's
     * longest-lived incarnation: the growth over the last half of it (the slope of a least-squares
     * line times the half's length) stays within noise: at most 10 % of the mean or a floor
     * (16 MiB, 16 MiB, 20 descriptors, 5 threads).
     */
    void resourcesFlat(List<ProxyReplica> replicas) {
        List<String> grew = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (ProxyReplica replica : replicas) {
            List<ProxyReplica.Sample> longest = replica.incarnations().stream()
                    .max(java.util.Comparator.comparingInt(List::size)).orElse(List.of());
            if (longest.size() < 6) {
                seen.add(replica.name() + ": too few samples (" + longest.size() + ")");
                continue;
            }
            List<ProxyReplica.Sample> half = longest.subList(longest.size() / 2, longest.size());
            check(replica.name() + " heap", half, ProxyReplica.Sample::heapMib, 16, "MiB", grew, seen);
            check(replica.name() + " direct", half, ProxyReplica.Sample::directMib, 16, "MiB", grew, seen);
            check(replica.name() + " fds", half, ProxyReplica.Sample::fds, 20, "", grew, seen);
            check(replica.name() + " threads", half, ProxyReplica.Sample::threads, 5, "", grew, seen);
        }
        add("heap, direct memory, file descriptors and threads flat", grew.isEmpty(),
                grew.isEmpty() ? String.join("; ", seen) : String.join("; ", grew));
    }

    private static void check(String what, List<ProxyReplica.Sample> samples,
                              java.util.function.ToDoubleFunction<ProxyReplica.Sample> value, double floor,
                              String unit, List<String> grew, List<String> seen) {
        double n = samples.size();
        double meanT = samples.stream().mapToDouble(ProxyReplica.Sample::seconds).average().orElse(0);
        double meanV = samples.stream().mapToDouble(value).average().orElse(0);
        double cov = 0;
        double var = 0;
        for (ProxyReplica.Sample s : samples) {
            cov += (s.seconds() - meanT) * (value.applyAsDouble(s) - meanV);
            var += (s.seconds() - meanT) * (s.seconds() - meanT);
        }
        double span = samples.get(samples.size() - 1).seconds() - samples.get(0).seconds();
        double growth = var == 0 ? 0 : cov / var * span;
        double allowed = Math.max(floor, 0.1 * Math.abs(meanV));
        String line = String.format(Locale.ROOT, "%s %+.1f%s over %.0f s (mean %.1f, allowed %.1f)", what, growth, unit,
                span, meanV, allowed);
        (growth > allowed ? grew : seen).add(line);
        if (n == 0) {
            seen.add(what + ": no samples");
        }
    }

    /**
     * After every chaos event, every workload {@code label} names (by the prefix of their names)
     * succeeded again within the bound: the slowest of them counts for the event.
     */
    void recoveredAfterEveryEvent(String label, String namePrefix, List<Chaos.Event> events,
                                  Map<Chaos.Event, Map<String, Double>> recoverySeconds, Duration bound, String counted) {
        List<String> slow = new ArrayList<>();
        double worst = 0;
        for (Chaos.Event event : events) {
            Map<String, Double> byWorkload = recoverySeconds.getOrDefault(event, Map.of());
            double seconds = byWorkload.entrySet().stream().filter(e -> e.getKey().startsWith(namePrefix))
                    .mapToDouble(Map.Entry::getValue).max().orElse(Double.POSITIVE_INFINITY);
            worst = Math.max(worst, seconds);
            if (seconds > bound.toSeconds()) {
                List<String> late = byWorkload.entrySet().stream()
                        .filter(e -> e.getKey().startsWith(namePrefix) && e.getValue() > bound.toSeconds())
                        .map(Map.Entry::getKey).sorted().toList();
                slow.add(event.kind() + " (" + event.target() + ") at " + Math.round(event.startedSeconds()) + " s: "
                        + (Double.isInfinite(seconds) ? "never" : Math.round(seconds) + " s") + " " + late);
            }
        }
        add(label + " recovered within " + bound.toSeconds() + " s of every chaos event", slow.isEmpty(),
                (slow.isEmpty() ? events.size() + " events, slowest recovery " + String.format(Locale.ROOT, "%.1f s", worst)
                        : String.join("; ", slow)) + (counted.isEmpty() ? "" : "; " + counted));
    }

    /**
     * The transactional loop's output, read with read_committed from the brokers, holds each input
     * record exactly once ({@code <partition>:<offset>:<value>} of the input) and nothing else.
     */
    void exactlyOnce(Map<Integer, Map<Long, String>> input, Map<Integer, Map<Long, String>> output, String counted) {
        Map<String, Integer> times = new HashMap<>();
        output.values().forEach(p -> p.values().forEach(v -> times.merge(v, 1, Integer::sum)));
        List<String> twice = times.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).limit(5).toList();
        long expected = 0;
        List<String> missing = new ArrayList<>();
        long missingCount = 0;
        for (var partition : input.entrySet()) {
            for (var record : partition.getValue().entrySet()) {
                expected++;
                String out = partition.getKey() + ":" + record.getKey() + ":" + record.getValue();
                if (times.remove(out) == null) {
                    missingCount++;
                    if (missing.size() < 5) {
                        missing.add(out);
                    }
                }
            }
        }
        long extra = output.values().stream().mapToLong(Map::size).sum() - (expected - missingCount);
        List<String> problems = new ArrayList<>();
        if (missingCount > 0) {
            problems.add(missingCount + " input records not in the output, e.g. " + missing);
        }
        if (extra > 0) {
            problems.add(extra + " output records more than once or not from the input, e.g. " + twice + " "
                    + times.keySet().stream().limit(5).toList());
        }
        add("exactly-once output of the transactional loop", problems.isEmpty(),
                (problems.isEmpty() ? expected + " input records, each once in the committed output"
                        : String.join("; ", problems)) + "; " + counted);
    }

    /**
     * Every LFS envelope record has its object with its size and SHA-256; every upload answered
     * 200 has its record; objects without a record are at most the uploads that failed (the
     * counted orphans: the proxy keeps an object when its record may exist).
     */
    void lfsObjectsMatchRecords(LfsAudit audit, LfsTraffic traffic) {
        List<String> problems = new ArrayList<>();
        if (!audit.missing().isEmpty()) {
            problems.add(audit.missing().size() + " envelopes without their object, e.g. " + first(audit.missing()));
        }
        if (!audit.corrupt().isEmpty()) {
            problems.add(audit.corrupt().size() + " objects with another size or SHA-256, e.g. " + first(audit.corrupt()));
        }
        List<String> unrecorded = traffic.uploaded().keySet().stream().filter(k -> !audit.envelopeKeys().contains(k)).toList();
        if (!unrecorded.isEmpty()) {
            problems.add(unrecorded.size() + " uploads answered 200 without a record in Kafka, e.g. " + first(unrecorded));
        }
        if (audit.orphans().size() > traffic.uploadFailed()) {
            problems.add(audit.orphans().size() + " objects without a record but only " + traffic.uploadFailed()
                    + " uploads failed, e.g. " + first(audit.orphans()));
        }
        add("every LFS record's object present with its checksum, no object without a record but counted orphans",
                problems.isEmpty(), (problems.isEmpty() ? audit.envelopes() + " envelope records, " + audit.objects()
                        + " objects, all with size and SHA-256 as recorded" : String.join("; ", problems))
                        + String.format(Locale.ROOT, "; %d orphans (objects without a record) after %d failed uploads %s;"
                                + " %d uploads answered, %.0f MiB", audit.orphans().size(), traffic.uploadFailed(),
                        traffic.failures(), traffic.uploaded().size(), traffic.bytesUploaded() / 1048576.0));
    }

    /** Every payload chosen for a download came back with its bytes (failed attempts are retried, and counted). */
    void lfsDownloadsVerified(LfsTraffic traffic) {
        boolean passed = traffic.downloadMismatches() == 0 && traffic.downloadsPending() == 0;
        add("LFS downloads return the bytes uploaded", passed, String.format(Locale.ROOT,
                "%d downloads verified, %d with other bytes, %d still failing at the end, %d failed attempts retried",
                traffic.downloadsVerified(), traffic.downloadMismatches(), traffic.downloadsPending(),
                traffic.downloadErrors()));
    }

    private static List<String> first(List<String> items) {
        return items.subList(0, Math.min(3, items.size()));
    }

    void chaosHappened(List<Chaos.Event> events) {
        long failed = events.stream().filter(e -> !e.outcome().equals("done")).count();
        add("chaos events carried out", failed == 0 && !events.isEmpty(),
                events.size() + " events" + (failed == 0 ? "" : ", " + failed + " could not be carried out"));
    }
}
