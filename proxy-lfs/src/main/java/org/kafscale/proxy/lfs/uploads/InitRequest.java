package org.kafscale.proxy.lfs.uploads;

import java.io.IOException;
import java.util.Base64;
import java.util.OptionalInt;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.HeaderValues;
import org.kafscale.proxy.lfs.http.JsonNumbers;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsTopicNames;

/**
 * A validated {@code POST /lfs/uploads} body (spec §4.4).
 *
 * @param topic target topic
 * @param recordKey the record key as sent (standard base64), or null
 * @param partition explicit partition, else chosen from the key (Kafka's partitioner) or 0
 * @param contentType the object's content type
 * @param sizeBytes the object's size
 * @param checksum the expected checksum, or null
 * @param checksumAlg the checksum algorithm
 */
public record InitRequest(String topic, String recordKey, OptionalInt partition, String contentType, long sizeBytes,
                          String checksum, ChecksumAlg checksumAlg) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The record key's bytes, or null. */
    byte[] keyBytes() {
        return recordKey == null ? null : Base64.getDecoder().decode(recordKey);
    }

    /** Parses and validates in the spec's order; the first failure is the answer. */
    public static InitRequest parse(byte[] json, UploadSettings settings) {
        JsonNode body;
        try {
            body = MAPPER.readTree(json);
        } catch (IOException e) {
            throw invalidJson();
        }
        if (body == null || !body.isObject()) {
            throw invalidJson();
        }
        String topic = text(body, "topic");
        new LfsTopicNames(settings.topicMaxLength()).check(topic);
        String contentType = text(body, "content_type");
        if (contentType == null || contentType.isBlank()) {
            throw LfsException.badRequest("missing_content_type", "content_type is required");
        }
        // It becomes the object's Content-Type header: refused here, not by the S3 client as a 502.
        HeaderValues.check("content_type", contentType, HeaderValues.MAX_CONTENT_TYPE);
        long size = JsonNumbers.wholeNumber(body, "size_bytes", 1, Long.MAX_VALUE, "invalid_size").orElse(0);
        if (size <= 0) {
            throw LfsException.badRequest("invalid_size", "size_bytes must be > 0");
        }
        if (size > settings.maxBlobSize()) {
            throw LfsException.badRequest("payload_too_large",
                    "size_bytes " + size + " exceeds max " + settings.maxBlobSize());
        }
        String key = text(body, "key");
        if (key != null && !key.isEmpty() && !isBase64(key)) {
            throw LfsException.badRequest("invalid_key", "key must be standard base64");
        }
        OptionalInt partition = OptionalInt.empty();
        OptionalLong explicit = JsonNumbers.wholeNumber(body, "partition", 0, Integer.MAX_VALUE, "invalid_partition");
        if (explicit.isPresent()) {
            partition = OptionalInt.of((int) explicit.getAsLong());
        }
        String algName = text(body, "checksum_alg");
        ChecksumAlg alg = algName == null || algName.isBlank() ? settings.defaultChecksum()
                : ChecksumAlg.parse(algName).orElseThrow(() ->
                        LfsException.badRequest("invalid_request", "unsupported checksum algorithm"));
        String checksum = text(body, "checksum");
        checksum = checksum == null || checksum.isBlank() ? null : checksum.trim();
        if (checksum != null && alg == ChecksumAlg.NONE) {
            throw LfsException.badRequest("invalid_checksum", "a checksum needs an algorithm other than none");
        }
        return new InitRequest(topic, key == null || key.isEmpty() ? null : key, partition, contentType, size,
                checksum, alg);
    }

    private static LfsException invalidJson() {
        return LfsException.badRequest("invalid_request", "invalid JSON body");
    }

    private static String text(JsonNode body, String field) {
        JsonNode node = body.get(field);
        return node == null || node.isNull() ? null : node.asText();
    }

    private static boolean isBase64(String text) {
        try {
            Base64.getDecoder().decode(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
