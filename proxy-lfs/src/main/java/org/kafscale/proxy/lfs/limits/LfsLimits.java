package org.kafscale.proxy.lfs.limits;

import java.time.Duration;

/**
 * What the LFS module holds at most on behalf of its clients (docs/operations.md, "Limits").
 *
 * <p>Every upload (a {@code /lfs/produce} body or a multipart part) holds one S3 connection while
 * its body streams, and a stream download holds one while it copies the object to temp disk, so
 * the S3 pool is sized from these bounds: {@link #s3Connections()} leaves {@link #S3_RESERVE}
 * connections for the short calls (create, complete, delete) of the uploads admitted. The health
 * check and the session store use a pool of their own, so neither can be starved by clients.
 *
 * @param ioThreads event loop threads of the LFS listener and its broker client (0: Netty's default)
 * @param maxUploads uploads streaming at once, over all clients
 * @param maxUploadsPerClient uploads streaming at once for one client address
 * @param minUploadBytesPerSecond the slowest an upload body may arrive, averaged over each
 *                                {@code uploadRateWindow} in which the proxy kept reading (0: off)
 * @param uploadRateWindow how long the rate is averaged over
 * @param maxDownloads stream downloads being verified at once
 * @param downloadTempBytes bytes of temp disk all stream downloads may hold at once
 */
public record LfsLimits(int ioThreads, int maxUploads, int maxUploadsPerClient, long minUploadBytesPerSecond,
                        Duration uploadRateWindow, int maxDownloads, long downloadTempBytes) {
    /** S3 connections beyond those of admitted uploads and downloads, for their short calls. */
    public static final int S3_RESERVE = 32;
    /** Blocking threads beyond those stream downloads may hold, for short tasks (signing, deletes). */
    static final int BLOCKING_RESERVE = 8;

    public static final int DEFAULT_MAX_UPLOADS = 128;
    public static final int DEFAULT_MAX_UPLOADS_PER_CLIENT = 32;
    /** 4 KiB/s: far below any working link, far above a byte every few seconds. */
    public static final long DEFAULT_MIN_UPLOAD_BYTES_PER_SECOND = 4096;
    public static final Duration DEFAULT_UPLOAD_RATE_WINDOW = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_DOWNLOADS = 32;
    public static final long DEFAULT_DOWNLOAD_TEMP_BYTES = 10L * 1024 * 1024 * 1024;

    public LfsLimits {
        if (ioThreads < 0 || maxUploads < 1 || maxUploadsPerClient < 1 || minUploadBytesPerSecond < 0
                || uploadRateWindow.isNegative() || uploadRateWindow.isZero() || maxDownloads < 1
                || downloadTempBytes < 1) {
            throw new IllegalArgumentException("LFS limits must be positive (io threads and the rate may be 0)");
        }
    }

    /** The defaults a production deployment can keep. */
    public static LfsLimits defaults() {
        return new LfsLimits(0, DEFAULT_MAX_UPLOADS, DEFAULT_MAX_UPLOADS_PER_CLIENT,
                DEFAULT_MIN_UPLOAD_BYTES_PER_SECOND, DEFAULT_UPLOAD_RATE_WINDOW, DEFAULT_MAX_DOWNLOADS,
                DEFAULT_DOWNLOAD_TEMP_BYTES);
    }

    /**
     * Upload permits only an address holding none may take: an eighth of {@link #maxUploads}, at least
     * one (none when there is only one), so neither one address nor all those already uploading can
     * hold every permit.
     */
    public int uploadsReservedForNewClients() {
        return maxUploads == 1 ? 0 : Math.max(1, maxUploads / 8);
    }

    /** The size of the S3 pool of uploads and downloads. */
    public int s3Connections() {
        return maxUploads + maxDownloads + S3_RESERVE;
    }

    /** The size of the blocking pool: a thread per stream download, and some for short tasks. */
    public int blockingThreads() {
        return maxDownloads + Math.max(BLOCKING_RESERVE, 2 * Runtime.getRuntime().availableProcessors());
    }
}
