package org.kafscale.proxy.lfs.envelope;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The Kafka record value that stands for an object in S3 (spec §4.8). Empty strings and an empty
 * header map are "absent" and left out of the JSON, as KafScale does.
 *
 * @param version envelope version, {@link #VERSION}
 * @param bucket S3 bucket
 * @param key S3 object key
 * @param size payload bytes
 * @param sha256 lowercase hex SHA-256 of the payload
 * @param checksum lowercase hex digest in {@code checksumAlg}, or empty
 * @param checksumAlg {@code sha256|md5|crc32|none}, or empty
 * @param contentType the payload's content type, or empty
 * @param originalHeaders allowlisted record headers (Kafka path only), sorted by key as Go writes a map
 * @param createdAt RFC 3339 UTC with seconds
 * @param proxyId the proxy's id, or empty
 */
public record Envelope(int version, String bucket, String key, long size, String sha256, String checksum,
                       String checksumAlg, String contentType, SortedMap<String, String> originalHeaders,
                       String createdAt, String proxyId) {
    public static final int VERSION = 1;

    public Envelope {
        checksum = orEmpty(checksum);
        checksumAlg = orEmpty(checksumAlg);
        contentType = orEmpty(contentType);
        originalHeaders = originalHeaders == null ? new TreeMap<>() : new TreeMap<>(originalHeaders);
        createdAt = orEmpty(createdAt);
        proxyId = orEmpty(proxyId);
    }

    /** An envelope without original headers (the HTTP API's). */
    public static Envelope of(String bucket, String key, long size, String sha256, String checksum, String checksumAlg,
                              String contentType, String createdAt, String proxyId) {
        return new Envelope(VERSION, bucket, key, size, sha256, checksum, checksumAlg, contentType, null, createdAt,
                proxyId);
    }

    @Override
    public SortedMap<String, String> originalHeaders() {
        return new TreeMap<>(originalHeaders);
    }

    /** Headers as an unmodifiable view. */
    public Map<String, String> headerView() {
        return java.util.Collections.unmodifiableSortedMap(originalHeaders);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
