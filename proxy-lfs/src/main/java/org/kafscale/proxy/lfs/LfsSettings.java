package org.kafscale.proxy.lfs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.HttpSettings;
import org.kafscale.proxy.lfs.limits.LfsLimits;
import org.kafscale.proxy.lfs.publish.PublishSettings;
import org.kafscale.proxy.lfs.rewrite.OffloadSettings;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.lfs.tracker.TrackerSettings;

/**
 * Everything the LFS module is configured with, built and validated once by the application.
 *
 * @param s3 the object store
 * @param http the listener
 * @param publish how envelopes reach brokers
 * @param tracker the ops tracker
 * @param namespace first segment of every object key ({@code KAFSCALE_S3_NAMESPACE})
 * @param proxyId written into envelopes and events, may be empty
 * @param maxBlobSize the largest payload accepted
 * @param chunkSize S3 part size for streamed uploads (at least 5 MiB)
 * @param defaultChecksum the algorithm when a request names none
 * @param topicMaxLength longest topic name accepted
 * @param downloadTtl longest presigned URL lifetime
 * @param presignEnabled whether {@code mode=presign} downloads are allowed
 * @param uploadSessionTtl multipart session lifetime
 * @param dialTimeout broker connect timeout of the LFS path
 * @param tempDir where verified downloads are staged
 * @param rewriteTopics topics whose {@code LFS_BLOB} records the Kafka listener rewrites ({@code *} for
 *                      all); empty turns the Kafka-side rewrite off
 * @param limits what the module holds at most for its clients (uploads, downloads, temp disk, threads)
 * @param offload the topics whose records over a size the Kafka listener offloads to S3, with no
 *                {@code LFS_BLOB} header; {@link OffloadSettings#OFF} for none
 */
public record LfsSettings(S3Settings s3, HttpSettings http, PublishSettings publish, TrackerSettings tracker,
                          String namespace, String proxyId, long maxBlobSize, int chunkSize,
                          ChecksumAlg defaultChecksum, int topicMaxLength, Duration downloadTtl,
                          boolean presignEnabled, Duration uploadSessionTtl, Duration dialTimeout, Path tempDir,
                          Set<String> rewriteTopics, LfsLimits limits, OffloadSettings offload) {
    /** S3's smallest part (except the last). */
    public static final int MIN_CHUNK_SIZE = 5 * 1024 * 1024;
    public static final long DEFAULT_MAX_BLOB_SIZE = 5L * 1024 * 1024 * 1024;

    public LfsSettings {
        chunkSize = Math.max(MIN_CHUNK_SIZE, chunkSize);
        namespace = namespace == null || namespace.isBlank() ? "default" : namespace;
        proxyId = proxyId == null ? "" : proxyId;
        rewriteTopics = rewriteTopics == null ? Set.of() : Set.copyOf(rewriteTopics);
        limits = limits == null ? LfsLimits.defaults() : limits;
        offload = offload == null ? OffloadSettings.OFF : offload;
    }

    /** Settings with no offload by size. */
    public LfsSettings(S3Settings s3, HttpSettings http, PublishSettings publish, TrackerSettings tracker,
                       String namespace, String proxyId, long maxBlobSize, int chunkSize,
                       ChecksumAlg defaultChecksum, int topicMaxLength, Duration downloadTtl,
                       boolean presignEnabled, Duration uploadSessionTtl, Duration dialTimeout, Path tempDir,
                       Set<String> rewriteTopics, LfsLimits limits) {
        this(s3, http, publish, tracker, namespace, proxyId, maxBlobSize, chunkSize, defaultChecksum, topicMaxLength,
                downloadTtl, presignEnabled, uploadSessionTtl, dialTimeout, tempDir, rewriteTopics, limits,
                OffloadSettings.OFF);
    }

    /** Settings with the Kafka-side rewrite off and the default limits. */
    public LfsSettings(S3Settings s3, HttpSettings http, PublishSettings publish, TrackerSettings tracker,
                       String namespace, String proxyId, long maxBlobSize, int chunkSize,
                       ChecksumAlg defaultChecksum, int topicMaxLength, Duration downloadTtl,
                       boolean presignEnabled, Duration uploadSessionTtl, Duration dialTimeout, Path tempDir) {
        this(s3, http, publish, tracker, namespace, proxyId, maxBlobSize, chunkSize, defaultChecksum, topicMaxLength,
                downloadTtl, presignEnabled, uploadSessionTtl, dialTimeout, tempDir, Set.of(), LfsLimits.defaults());
    }

    /** These settings with other limits. */
    public LfsSettings withLimits(LfsLimits other) {
        return new LfsSettings(s3, http, publish, tracker, namespace, proxyId, maxBlobSize, chunkSize, defaultChecksum,
                topicMaxLength, downloadTtl, presignEnabled, uploadSessionTtl, dialTimeout, tempDir, rewriteTopics,
                other, offload);
    }

    /** These settings with another offload rule. */
    public LfsSettings withOffload(OffloadSettings other) {
        return new LfsSettings(s3, http, publish, tracker, namespace, proxyId, maxBlobSize, chunkSize, defaultChecksum,
                topicMaxLength, downloadTtl, presignEnabled, uploadSessionTtl, dialTimeout, tempDir, rewriteTopics,
                limits, other);
    }
}
