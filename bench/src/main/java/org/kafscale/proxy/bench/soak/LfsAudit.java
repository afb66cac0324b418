package org.kafscale.proxy.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The end check of the LFS traffic, from what the brokers and S3 hold (not from what the proxy
 * said): every envelope record of the LFS topic has its object, of the envelope's size and
 * SHA-256; and the objects under the topic's prefix that no record points to (orphans).
 *
 * @param envelopes the envelope records in the topic
 * @param envelopeKeys their object keys
 * @param missing envelopes whose object is not in S3 (at most a few named)
 * @param corrupt envelopes whose object has another size or SHA-256 (at most a few named)
 * @param orphans objects under the topic's prefix that no envelope names
 */
record LfsAudit(long envelopes, Set<String> envelopeKeys, List<String> missing, List<String> corrupt,
                List<String> orphans, long objects) {
    private static final ObjectMapper JSON = new ObjectMapper();

    static LfsAudit of(Map<Integer, Map<Long, String>> topicLog, String topic, S3Client s3, String bucket) {
        Set<String> keys = new HashSet<>();
        List<String> missing = new ArrayList<>();
        List<String> corrupt = new ArrayList<>();
        long envelopes = 0;
        for (Map<Long, String> partition : topicLog.values()) {
            for (String value : partition.values()) {
                JsonNode envelope = parse(value);
                if (envelope == null || !envelope.has("kfs_lfs")) {
                    continue;
                }
                envelopes++;
                String key = envelope.path("key").asText();
                keys.add(key);
                try (ResponseInputStream<GetObjectResponse> object = s3.getObject(b -> b.bucket(bucket).key(key))) {
                    Sha256.Sized got = Sha256.of(object);
                    if (got.size() != envelope.path("size").asLong() || !got.hex().equals(envelope.path("sha256").asText())) {
                        corrupt.add(key + " (" + got.size() + " bytes, sha256 " + got.hex() + ")");
                    }
                } catch (NoSuchKeyException e) {
                    missing.add(key);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + key + " from S3", e);
                }
            }
        }
        List<String> orphans = new ArrayList<>();
        long objects = 0;
        for (S3Object object : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
            if (!object.key().contains("/" + topic + "/lfs/")) {
                continue;
            }
            objects++;
            if (!keys.contains(object.key())) {
                orphans.add(object.key());
            }
        }
        return new LfsAudit(envelopes, Set.copyOf(keys), List.copyOf(missing), List.copyOf(corrupt),
                List.copyOf(orphans), objects);
    }

    private static JsonNode parse(String value) {
        try {
            return value == null || !value.startsWith("{") ? null : JSON.readTree(value);
        } catch (IOException e) {
            return null;
        }
    }
}
