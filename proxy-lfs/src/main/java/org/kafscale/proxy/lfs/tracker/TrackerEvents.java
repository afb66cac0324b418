package org.kafscale.proxy.lfs.tracker;

/**
 * The event types of spec §4.13, each with its fields in KafScale's order. One instance per
 * proxy, carrying its {@code proxy_id}.
 */
public final class TrackerEvents {
    public static final String API_HTTP = "http";
    public static final String API_HTTP_CHUNKED = "http-chunked";

    private final String proxyId;

    public TrackerEvents(String proxyId) {
        this.proxyId = proxyId == null ? "" : proxyId;
    }

    public TrackerEvent uploadStarted(String requestId, String topic, int partition, String s3Key, String contentType,
                                      long expectedSize, String clientIp, String apiType) {
        return TrackerEvent.builder("upload_started", proxyId, requestId).topic(topic).put("partition", partition)
                .put("s3_key", s3Key).optional("content_type", contentType).optional("expected_size", expectedSize)
                .optional("client_ip", clientIp).put("api_type", apiType).build();
    }

    public TrackerEvent uploadCompleted(String requestId, String topic, int partition, String bucket, String s3Key,
                                        long size, String sha256, String checksum, String checksumAlg,
                                        long durationMs, String contentType) {
        // kafka_offset is always 0 in the original, so omitted; kept out here for the same bytes.
        return TrackerEvent.builder("upload_completed", proxyId, requestId).topic(topic).put("partition", partition)
                .put("s3_bucket", bucket).put("s3_key", s3Key).put("size", size).put("sha256", sha256)
                .optional("checksum", checksum).optional("checksum_alg", checksumAlg).put("duration_ms", durationMs)
                .optional("content_type", contentType).build();
    }

    public TrackerEvent uploadFailed(String requestId, String topic, String s3Key, String errorCode,
                                     String errorMessage, String stage, long sizeUploaded, long durationMs) {
        return TrackerEvent.builder("upload_failed", proxyId, requestId).topic(topic).optional("s3_key", s3Key)
                .put("error_code", errorCode).put("error_message", errorMessage).put("stage", stage)
                .optional("size_uploaded", sizeUploaded).put("duration_ms", durationMs).build();
    }

    public TrackerEvent downloadRequested(String requestId, String bucket, String s3Key, String mode, String clientIp,
                                          long ttlSeconds) {
        return TrackerEvent.builder("download_requested", proxyId, requestId).put("s3_bucket", bucket)
                .put("s3_key", s3Key).put("mode", mode).optional("client_ip", clientIp)
                .optional("ttl_seconds", ttlSeconds).build();
    }

    public TrackerEvent downloadCompleted(String requestId, String s3Key, String mode, long durationMs, long size) {
        return TrackerEvent.builder("download_completed", proxyId, requestId).put("s3_key", s3Key).put("mode", mode)
                .put("duration_ms", durationMs).optional("size", size).build();
    }

    public TrackerEvent downloadIntegrityFailed(String requestId, String bucket, String s3Key, String mode,
                                                String expectedSha256, String actualSha256, long bytesRead,
                                                long expectedSize) {
        return TrackerEvent.builder("download_integrity_failed", proxyId, requestId).put("s3_bucket", bucket)
                .put("s3_key", s3Key).put("mode", mode).put("checksum_alg", "sha256")
                .put("expected_sha256", expectedSha256).put("actual_sha256", actualSha256)
                .put("bytes_read", bytesRead).optional("expected_size", expectedSize).build();
    }

    public TrackerEvent orphanDetected(String requestId, String topic, String bucket, String s3Key, String reason) {
        return TrackerEvent.builder("orphan_detected", proxyId, requestId).put("detection_source", "upload_failure")
                .topic(topic).put("s3_bucket", bucket).put("s3_key", s3Key)
                .optional("original_request_id", requestId).put("reason", reason).build();
    }
}
