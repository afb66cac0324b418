package org.kafscale.proxy.lfs.envelope;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes and reads envelopes byte-for-byte as KafScale's Go code does: compact JSON, keys in the
 * struct's order with {@code kfs_lfs} first (SDKs detect an envelope by it within the first 50
 * bytes), empty optional fields left out, and Go's string escaping ({@code <}, {@code >},
 * {@code &}, U+2028 and U+2029 as {@code \}{@code uXXXX}).
 *
 * <p>Written by hand rather than through Jackson so the byte layout is fixed here, not by
 * mapper defaults.
 */
public final class EnvelopeCodec {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int MIN_ENVELOPE_BYTES = 15;
    private static final int DETECTION_WINDOW = 50;
    private static final byte[] MARKER = "\"kfs_lfs\"".getBytes(StandardCharsets.US_ASCII);

    private EnvelopeCodec() {
    }

    /** The envelope's JSON bytes (no trailing newline). */
    public static byte[] encode(Envelope e) {
        if (e.version() == 0 || e.bucket().isEmpty() || e.key().isEmpty() || e.sha256().isEmpty()) {
            throw new IllegalArgumentException("an envelope needs a version, bucket, key and sha256");
        }
        StringBuilder json = new StringBuilder(256);
        json.append("{\"kfs_lfs\":").append(e.version());
        field(json, "bucket", e.bucket());
        field(json, "key", e.key());
        json.append(",\"size\":").append(e.size());
        field(json, "sha256", e.sha256());
        optional(json, "checksum", e.checksum());
        optional(json, "checksum_alg", e.checksumAlg());
        optional(json, "content_type", e.contentType());
        if (!e.headerView().isEmpty()) {
            json.append(",\"original_headers\":{");
            boolean first = true;
            for (Map.Entry<String, String> h : e.headerView().entrySet()) {
                if (!first) {
                    json.append(',');
                }
                first = false;
                GoJson.quote(json, h.getKey());
                json.append(':');
                GoJson.quote(json, h.getValue());
            }
            json.append('}');
        }
        field(json, "created_at", e.createdAt());
        optional(json, "proxy_id", e.proxyId());
        json.append('}');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Parses an envelope; fails like KafScale's decoder when version, bucket, key or sha256 is missing. */
    public static Envelope decode(byte[] value) {
        JsonNode n;
        try {
            n = MAPPER.readTree(value);
        } catch (IOException ex) {
            throw new IllegalArgumentException("not an LFS envelope: " + ex.getMessage(), ex);
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("not an LFS envelope: not a JSON object");
        }
        TreeMap<String, String> headers = new TreeMap<>();
        JsonNode h = n.path("original_headers");
        for (Iterator<Map.Entry<String, JsonNode>> it = h.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> entry = it.next();
            headers.put(entry.getKey(), entry.getValue().asText());
        }
        Envelope e = new Envelope(n.path("kfs_lfs").asInt(0), n.path("bucket").asText(""), n.path("key").asText(""),
                n.path("size").asLong(0), n.path("sha256").asText(""), n.path("checksum").asText(""),
                n.path("checksum_alg").asText(""), n.path("content_type").asText(""), headers,
                n.path("created_at").asText(""), n.path("proxy_id").asText(""));
        if (e.version() == 0 || e.bucket().isEmpty() || e.key().isEmpty() || e.sha256().isEmpty()) {
            throw new IllegalArgumentException("not an LFS envelope: version, bucket, key and sha256 are required");
        }
        return e;
    }

    /** KafScale's detection rule: at least 15 bytes, starts with '{', "kfs_lfs" within the first 50 bytes. */
    public static boolean looksLikeEnvelope(byte[] value) {
        if (value == null || value.length < MIN_ENVELOPE_BYTES || value[0] != '{') {
            return false;
        }
        int window = Math.min(value.length, DETECTION_WINDOW);
        outer:
        for (int i = 0; i + MARKER.length <= window; i++) {
            for (int j = 0; j < MARKER.length; j++) {
                if (value[i + j] != MARKER[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void field(StringBuilder json, String name, String value) {
        json.append(",\"").append(name).append("\":");
        GoJson.quote(json, value);
    }

    private static void optional(StringBuilder json, String name, String value) {
        if (!value.isEmpty()) {
            field(json, name, value);
        }
    }
}
