package org.kafscale.proxy.lfs.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Locale;
import java.util.regex.Pattern;
import org.kafscale.proxy.lfs.http.JsonNumbers;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.s3.ObjectKeys;

/**
 * A {@code POST /lfs/download} body, validated in the spec's order (§4.5).
 *
 * @param bucket the bucket (the configured one)
 * @param key the object key
 * @param mode {@code stream} or {@code presign}
 * @param expiresSeconds the requested presign lifetime, 0 for the default
 * @param sha256 the expected SHA-256, lowercase hex
 * @param size the expected size (0 when not given; required for stream mode)
 */
public record DownloadRequest(String bucket, String key, String mode, long expiresSeconds, String sha256, long size) {
    public static final String STREAM = "stream";
    public static final String PRESIGN = "presign";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SHA256_HEX = Pattern.compile("^[0-9a-fA-F]{64}$");

    /**
     * Parses and validates; throws the first rule's {@link LfsException}.
     *
     * @param configuredBucket the only bucket downloads may read
     * @param keys the key rules
     * @param presignEnabled whether presign mode is allowed
     * @param maxBlob the largest payload a stream download may verify
     */
    public static DownloadRequest parse(byte[] body, String configuredBucket, ObjectKeys keys, boolean presignEnabled,
                                        long maxBlob) {
        JsonNode json;
        try {
            json = JSON.readTree(body);
        } catch (IOException e) {
            json = null;
        }
        if (json == null || !json.isObject()) {
            throw LfsException.badRequest("invalid_request", "invalid JSON body");
        }
        String bucket = json.path("bucket").asText("").trim();
        String key = json.path("key").asText("").trim();
        if (bucket.isEmpty() || key.isEmpty()) {
            throw LfsException.badRequest("invalid_request", "bucket and key required");
        }
        if (!bucket.equals(configuredBucket)) {
            throw LfsException.badRequest("invalid_bucket", "bucket not allowed");
        }
        keys.checkDownloadKey(key);
        String mode = json.path("mode").asText("").trim().toLowerCase(Locale.ROOT);
        if (mode.isEmpty()) {
            mode = STREAM;
        }
        if (!mode.equals(STREAM) && !mode.equals(PRESIGN)) {
            throw LfsException.badRequest("invalid_mode", "mode must be stream or presign");
        }
        if (mode.equals(PRESIGN) && !presignEnabled) {
            throw LfsException.badRequest("presign_disabled", "presigned downloads are disabled");
        }
        JsonNode integrity = json.path("integrity");
        String sha256 = integrity.path("sha256").asText("").trim();
        if (sha256.isEmpty()) {
            throw LfsException.badRequest("missing_integrity", "integrity.sha256 is required");
        }
        if (!SHA256_HEX.matcher(sha256).matches()) {
            throw LfsException.badRequest("invalid_integrity", "integrity.sha256 must be 64 hex characters");
        }
        String alg = integrity.path("checksum_alg").asText("").trim().toLowerCase(Locale.ROOT);
        if (!alg.isEmpty() && !alg.equals("sha256")) {
            throw LfsException.badRequest("unsupported_checksum_alg", "only sha256 integrity is supported");
        }
        long size = integrity.isObject()
                ? JsonNumbers.wholeNumber(integrity, "size", 0, Long.MAX_VALUE, "invalid_integrity").orElse(0)
                : 0;
        if (mode.equals(STREAM)) {
            if (size <= 0) {
                throw LfsException.badRequest("missing_integrity_size", "integrity.size is required for stream mode");
            }
            if (size > maxBlob || size == Long.MAX_VALUE) {
                throw LfsException.badRequest("payload_too_large", "integrity.size exceeds the maximum blob size");
            }
        }
        long expires = JsonNumbers.wholeNumber(json, "expires_seconds", 0, Long.MAX_VALUE, "invalid_request").orElse(0);
        return new DownloadRequest(bucket, key, mode, expires,
                sha256.toLowerCase(Locale.ROOT), size);
    }
}
