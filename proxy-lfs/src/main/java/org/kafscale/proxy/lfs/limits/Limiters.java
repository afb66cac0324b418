package org.kafscale.proxy.lfs.limits;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The module's admission bounds, built once from {@link LfsLimits}.
 *
 * @param uploads {@code /lfs/produce} bodies and multipart parts streaming to S3
 * @param downloads stream downloads being verified
 * @param temp temp-disk bytes of stream downloads
 */
public record Limiters(ConcurrencyGate uploads, ConcurrencyGate downloads, TempBudget temp) {

    public static Limiters from(LfsLimits limits, MeterRegistry registry) {
        return new Limiters(new ConcurrencyGate("uploads", limits.maxUploads(), limits.maxUploadsPerClient(),
                        limits.uploadsReservedForNewClients(), registry),
                // A download's cost is its temp bytes, bounded on their own; per client only the total applies.
                new ConcurrencyGate("downloads", limits.maxDownloads(), limits.maxDownloads(), 0, registry),
                new TempBudget(limits.downloadTempBytes(), registry));
    }
}
