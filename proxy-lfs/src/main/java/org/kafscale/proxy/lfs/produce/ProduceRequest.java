package org.kafscale.proxy.lfs.produce;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Base64;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.HeaderValues;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsTopicNames;

/**
 * The headers of a {@code POST /lfs/produce}, validated in the spec's order (§4.3 steps 4-6).
 *
 * @param topic the target topic
 * @param key the decoded record key, or null
 * @param partition the explicit partition, if given
 * @param checksum the expected checksum (lowercase), or empty
 * @param alg the checksum algorithm
 * @param contentType the request's Content-Type, or empty
 * @param contentLength the declared body length, if given
 */
public record ProduceRequest(String topic, byte[] key, OptionalInt partition, String checksum, ChecksumAlg alg,
                             String contentType, OptionalLong contentLength) {

    public static ProduceRequest parse(HttpHeaders headers, LfsTopicNames topics, ChecksumAlg defaultAlg, long maxBlob) {
        String topic = trimmed(headers, "X-Kafka-Topic");
        topics.check(topic);
        byte[] key = null;
        String keyHeader = headers.get("X-Kafka-Key");
        if (keyHeader != null && !keyHeader.trim().isEmpty()) {
            try {
                key = Base64.getDecoder().decode(keyHeader.trim());
            } catch (IllegalArgumentException e) {
                throw LfsException.badRequest("invalid_key", "X-Kafka-Key must be standard base64");
            }
        }
        OptionalInt partition = OptionalInt.empty();
        String partitionHeader = trimmed(headers, "X-Kafka-Partition");
        if (!partitionHeader.isEmpty()) {
            try {
                partition = OptionalInt.of(Integer.parseInt(partitionHeader));
            } catch (NumberFormatException e) {
                throw LfsException.badRequest("invalid_partition", "X-Kafka-Partition must be a 32-bit integer");
            }
            if (partition.getAsInt() < 0) {
                throw LfsException.badRequest("invalid_partition", "X-Kafka-Partition must not be negative");
            }
        }
        String algHeader = trimmed(headers, "X-LFS-Checksum-Alg");
        ChecksumAlg alg = algHeader.isEmpty() ? defaultAlg : ChecksumAlg.parse(algHeader).orElseThrow(() ->
                LfsException.badRequest("invalid_request", "unsupported checksum algorithm"));
        String checksum = trimmed(headers, "X-LFS-Checksum").toLowerCase(Locale.ROOT);
        if (!checksum.isEmpty() && alg == ChecksumAlg.NONE) {
            throw LfsException.badRequest("invalid_checksum", "a checksum was sent with algorithm none");
        }
        OptionalLong length = OptionalLong.empty();
        String lengthHeader = trimmed(headers, HttpHeaderNames.CONTENT_LENGTH.toString());
        if (!lengthHeader.isEmpty()) {
            long declared = Long.parseLong(lengthHeader); // the HTTP decoder already refused a malformed one
            if (declared == 0) {
                throw LfsException.badRequest("empty_upload", "empty upload");
            }
            if (declared > maxBlob) {
                throw LfsException.badRequest("payload_too_large", "blob size " + declared + " exceeds max " + maxBlob);
            }
            length = OptionalLong.of(declared);
        }
        String contentType = trimmed(headers, "Content-Type");
        HeaderValues.check("Content-Type", contentType, HeaderValues.MAX_CONTENT_TYPE);
        return new ProduceRequest(topic, key, partition, checksum, alg, contentType, length);
    }

    private static String trimmed(HttpHeaders headers, String name) {
        String value = headers.get(name);
        return value == null ? "" : value.trim();
    }
}
