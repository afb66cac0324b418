package org.kafscale.proxy.lfs.resolve;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The series of LFS resolution on Fetch, named as the other {@code kafscale_lfs_proxy_*} ones:
 * records and payload bytes resolved, S3 GET time, failures by reason, and the memory budget
 * (bytes held, Fetches waiting for room).
 */
final class ResolutionMetrics {
    private static final Duration[] GET_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10)};

    private final Counter records;
    private final Counter bytes;
    private final Timer gets;
    private final Map<ResolveFailure.Reason, Counter> failures = new EnumMap<>(ResolveFailure.Reason.class);

    ResolutionMetrics(MeterRegistry registry, ResolutionBudget budget) {
        records = Counter.builder("kafscale_lfs_proxy_fetch_resolved_records")
                .description("Envelope records replaced by their payload on Fetch").register(registry);
        bytes = Counter.builder("kafscale_lfs_proxy_fetch_resolved_bytes").baseUnit("bytes")
                .description("Payload bytes read from S3 and delivered on Fetch").register(registry);
        gets = Timer.builder("kafscale_lfs_proxy_fetch_s3_get_duration")
                .description("S3 GET of a payload on Fetch, until its last byte is read and checked")
                .serviceLevelObjectives(GET_BUCKETS).register(registry);
        for (ResolveFailure.Reason reason : ResolveFailure.Reason.values()) {
            failures.put(reason, Counter.builder("kafscale_lfs_proxy_fetch_resolve_failures")
                    .tag("reason", reason.label)
                    .description("Fetched partitions answered with an error because a payload could not be delivered")
                    .register(registry));
        }
        Gauge.builder("kafscale_lfs_proxy_fetch_resolve_memory_bytes", budget, ResolutionBudget::held)
                .baseUnit("bytes").description("Bytes reserved by Fetches being resolved (twice their payloads)")
                .register(registry);
        Gauge.builder("kafscale_lfs_proxy_fetch_resolve_memory_limit_bytes", budget, ResolutionBudget::capacity)
                .baseUnit("bytes").description("The memory budget of Fetches being resolved").register(registry);
        Gauge.builder("kafscale_lfs_proxy_fetch_resolve_waiting", budget, ResolutionBudget::waiting)
                .description("Fetches waiting for room in the memory budget").register(registry);
    }

    void resolved(long payloadBytes) {
        records.increment();
        bytes.increment(payloadBytes);
    }

    void s3Get(long nanos) {
        gets.record(nanos, TimeUnit.NANOSECONDS);
    }

    void failed(ResolveFailure.Reason reason) {
        failures.get(reason).increment();
    }
}
