package org.kafscale.proxy.lfs.resolve;

import io.micrometer.core.instrument.MeterRegistry;
import org.kafscale.proxy.lfs.LfsContext;

/**
 * What every {@link LfsFetchResolution} of the process shares, made once: the memory budget (one
 * per process, so the Kafka paths a live reload replaces and their successors draw on the same
 * bytes), the S3 reads and the series.
 */
public final class ResolutionServices {
    final AnswerResolution resolution;
    final LfsContext lfs;

    public ResolutionServices(LfsContext lfs, long memoryBytes, MeterRegistry registry) {
        this(lfs, new ResolutionBudget(memoryBytes), registry);
    }

    ResolutionServices(LfsContext lfs, ResolutionBudget budget, MeterRegistry registry) {
        ResolutionMetrics metrics = new ResolutionMetrics(registry, budget);
        this.lfs = lfs;
        this.resolution = new AnswerResolution(new PayloadReads(lfs.s3(), lfs.blocking(), metrics), budget, metrics,
                lfs.blocking(), lfs.settings().s3().bucket(), lfs.keys().namespace());
    }
}
