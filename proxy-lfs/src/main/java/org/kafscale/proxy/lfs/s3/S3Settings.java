package org.kafscale.proxy.lfs.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Where LFS objects live and how to reach the store.
 *
 * @param bucket the bucket (never one of {@link #BLOCKED_BUCKETS})
 * @param region the region
 * @param endpoint a custom endpoint (MinIO, S3Proxy), or empty for AWS
 * @param publicEndpoint the endpoint written into presigned URLs, or empty to use {@code endpoint}
 * @param accessKey static access key, or empty for the AWS default chain
 * @param secretKey static secret key (used only together with the access key)
 * @param sessionToken optional session token for the static credentials
 * @param forcePathStyle path-style addressing (also for presigned URLs)
 * @param ensureBucket create the bucket at start-up when it is missing
 * @param healthInterval how often HeadBucket refreshes the S3 health flag
 */
public record S3Settings(String bucket, String region, Optional<URI> endpoint, Optional<URI> publicEndpoint,
                         String accessKey, String secretKey, String sessionToken, boolean forcePathStyle,
                         boolean ensureBucket, Duration healthInterval) {

    /** Example and template bucket names that KafScale refuses, so a copied config never writes into them. */
    public static final Set<String> BLOCKED_BUCKETS =
            Set.of("kafscale-lfs", "kafscale-lfs-dev", "kafscale-lfs-staging", "kafscale-example");

    public S3Settings {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("an S3 bucket is required");
        }
        if (BLOCKED_BUCKETS.contains(bucket)) {
            throw new IllegalArgumentException("bucket " + bucket + " is an example name and is refused");
        }
        if (region == null || region.isBlank()) {
            throw new IllegalArgumentException("an S3 region is required");
        }
        accessKey = accessKey == null ? "" : accessKey;
        secretKey = secretKey == null ? "" : secretKey;
        sessionToken = sessionToken == null ? "" : sessionToken;
    }

    /** Whether static credentials are configured (both key and secret). */
    public boolean staticCredentials() {
        return !accessKey.isEmpty() && !secretKey.isEmpty();
    }
}
