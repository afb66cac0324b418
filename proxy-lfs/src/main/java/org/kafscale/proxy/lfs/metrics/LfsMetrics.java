package org.kafscale.proxy.lfs.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.kafscale.proxy.lfs.http.LfsTopicNames;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The {@code kafscale_lfs_proxy_*} series of spec §7, with the original's names and labels, on
 * the registry the application passes in. The Go runtime gauges map to their JVM equivalents:
 * live threads, heap used, memory committed, total GC pause.
 */
public final class LfsMetrics {
    public static final String TYPE_LFS = "lfs";
    private static final Duration[] UPLOAD_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};

    /** The label of requests whose topic is not (yet) known to exist. */
    public static final String OTHER_TOPIC = "other";
    /** More topics than one LFS proxy serves in practice; beyond it new topics count as {@link #OTHER_TOPIC}. */
    public static final int MAX_TOPIC_LABELS = 1000;
    private static final LfsTopicNames TOPIC_SYNTAX = new LfsTopicNames(249);

    private final Set<String> labelledTopics = ConcurrentHashMap.newKeySet();
    private final MeterRegistry registry;
    private final Timer uploadDuration;
    private final Counter uploadBytes;
    private final Counter s3Errors;
    private final Counter orphans;
    private final Counter offloadedRecords;
    private final Counter offloadedBytes;

    public LfsMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.uploadDuration = Timer.builder("kafscale_lfs_proxy_upload_duration")
                .description("LFS upload and produce time")
                .serviceLevelObjectives(UPLOAD_BUCKETS)
                .register(registry);
        this.uploadBytes = Counter.builder("kafscale_lfs_proxy_upload_bytes").baseUnit("bytes")
                .description("Bytes uploaded to S3 by the LFS API").register(registry);
        this.s3Errors = Counter.builder("kafscale_lfs_proxy_s3_errors")
                .description("Failed S3 calls (upload, part, complete, get, presign)").register(registry);
        this.orphans = Counter.builder("kafscale_lfs_proxy_orphan_objects")
                .description("S3 objects that may lack their Kafka record (kept, or a delete failed)").register(registry);
        this.offloadedRecords = Counter.builder("kafscale_lfs_proxy_offload_records")
                .description("Produce records over the offload threshold whose value the Kafka listener stored in S3")
                .register(registry);
        this.offloadedBytes = Counter.builder("kafscale_lfs_proxy_offload_bytes").baseUnit("bytes")
                .description("Bytes of the values the Kafka listener offloaded to S3").register(registry);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        Gauge.builder("kafscale_lfs_proxy_goroutines", () -> ManagementFactory.getThreadMXBean().getThreadCount())
                .description("Live JVM threads (the Go proxy reported goroutines)").register(registry);
        Gauge.builder("kafscale_lfs_proxy_memory_alloc_bytes", () -> memory.getHeapMemoryUsage().getUsed())
                .description("Heap in use").register(registry);
        Gauge.builder("kafscale_lfs_proxy_memory_sys_bytes", () -> memory.getHeapMemoryUsage().getCommitted()
                        + memory.getNonHeapMemoryUsage().getCommitted())
                .description("Memory committed by the JVM (heap and non-heap)").register(registry);
        FunctionCounter.builder("kafscale_lfs_proxy_gc_pause_total_ns", this, m -> gcPauseNanos())
                .description("Total GC time in nanoseconds").register(registry);
    }

    public void observeUpload(long nanos) {
        uploadDuration.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void addUploadBytes(long bytes) {
        if (bytes > 0) {
            uploadBytes.increment(bytes);
        }
    }

    /**
     * One finished LFS request for {@code topic}; {@code ok} false for a failure. The topic is a
     * label only once a request to it succeeded (so the topic exists; at most
     * {@link #MAX_TOPIC_LABELS} of them): the name comes from the client, and each new label is a
     * series kept for the life of the process. Every other request, including an empty topic,
     * counts under {@link #OTHER_TOPIC}.
     */
    public void request(String topic, boolean ok) {
        Counter.builder("kafscale_lfs_proxy_requests")
                .tag("topic", topicLabel(topic, ok))
                .tag("status", ok ? "ok" : "error")
                .tag("type", TYPE_LFS)
                .register(registry).increment();
    }

    private String topicLabel(String topic, boolean ok) {
        if (topic == null || !TOPIC_SYNTAX.valid(topic)) {
            return OTHER_TOPIC;
        }
        if (ok && labelledTopics.size() < MAX_TOPIC_LABELS) {
            labelledTopics.add(topic);
        }
        return labelledTopics.contains(topic) ? topic : OTHER_TOPIC;
    }

    /**
     * A connection to the LFS listener was closed before it was served.
     *
     * @param limit why: {@code proxy_header} (its PROXY protocol header was missing where required,
     *     malformed, or late)
     */
    public void connectionRefused(String limit) {
        Counter.builder("kafscale_lfs_proxy_connections_refused").tag("limit", limit)
                .description("Connections to the LFS listener closed before they were served, by reason")
                .register(registry).increment();
    }

    /** One record offloaded by size (its value in S3, an envelope in its place), of {@code bytes}. */
    public void offloaded(long bytes) {
        offloadedRecords.increment();
        if (bytes > 0) {
            offloadedBytes.increment(bytes);
        }
    }

    public void s3Error() {
        s3Errors.increment();
    }

    public void orphan() {
        orphans.increment();
    }

    public double orphanCount() {
        return orphans.count();
    }

    private static double gcPauseNanos() {
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            millis += Math.max(0, gc.getCollectionTime());
        }
        return millis * 1_000_000.0;
    }
}
