package org.kafscale.proxy.lfs.rewrite;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.header.Header;
import org.kafscale.proxy.core.codec.RecordEdits;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;

/**
 * One record marked for the Kafka-side rewrite (spec §4.10): its value, the checksum the
 * producer expects ({@code LFS_BLOB}'s value, trimmed; empty for none) and the algorithm
 * ({@code LFS_BLOB_ALG}, else the configured default).
 *
 * @param position where the record sits in its partition's records
 * @param value a copy of the value
 * @param headers the record's headers
 * @param expected the expected checksum, lowercase, or empty
 * @param alg the algorithm name as given
 * @param bySize chosen for its size on an offload topic, not for an {@code LFS_BLOB} header
 */
record LfsBlob(RecordEdits.Position position, byte[] value, Header[] headers, String expected, String alg,
               boolean bySize) {
    static final String MARKER = "LFS_BLOB";
    static final String ALG_HEADER = "LFS_BLOB_ALG";
    /** More than the first bytes {@link EnvelopeCodec#looksLikeEnvelope} looks at, so a big value is never copied to check it. */
    private static final int ENVELOPE_HEAD = 64;
    /** Headers copied into the envelope's {@code original_headers}, matched case-insensitively (spec §4.8). */
    private static final Set<String> ALLOWED = Set.of("content-type", "content-encoding", "correlation-id",
            "message-id", "x-correlation-id", "x-request-id", "traceparent", "tracestate");

    /**
     * The blob {@code record} carries: when {@code byMarker}, a record with an {@code LFS_BLOB}
     * header; when {@code offload} is on, a value over its threshold, header or not. A tombstone
     * (no value) is never one, nor a value that already is an envelope (a KafScale SDK's record
     * must not be wrapped twice). An {@code LFS_BLOB} checksum is honoured either way.
     *
     * @param offload the size rule of the record's topic; {@link OffloadSettings#OFF} when not an offload topic
     */
    static Optional<LfsBlob> of(RecordEdits.EditableRecord record, String defaultAlg, boolean byMarker,
                                OffloadSettings offload) {
        Header[] headers = record.headers();
        String expected = null;
        String alg = defaultAlg;
        for (Header h : headers) {
            if (MARKER.equals(h.key())) {
                expected = text(h).trim().toLowerCase(Locale.ROOT);
            } else if (ALG_HEADER.equals(h.key())) {
                alg = text(h).trim();
            }
        }
        boolean marked = byMarker && expected != null;
        boolean bySize = !marked && offload.isOn() && record.value() != null
                && offload.exceeds(record.value().remaining()) && !isEnvelope(record.value());
        if (!marked && !bySize) {
            return Optional.empty();
        }
        byte[] value = new byte[record.value() == null ? 0 : record.value().remaining()];
        if (record.value() != null) {
            record.value().duplicate().get(value);
        }
        return Optional.of(new LfsBlob(record.position(), value, headers, expected == null ? "" : expected, alg,
                bySize));
    }

    /** Whether {@code value} starts as an envelope does, read from its first bytes only. */
    private static boolean isEnvelope(ByteBuffer value) {
        byte[] head = new byte[Math.min(value.remaining(), ENVELOPE_HEAD)];
        value.duplicate().get(head);
        return EnvelopeCodec.looksLikeEnvelope(head);
    }

    /** The checksum algorithm, or empty when unsupported. */
    Optional<ChecksumAlg> checksumAlg() {
        return ChecksumAlg.parse(alg);
    }

    /** Every header but {@code LFS_BLOB}, in order. */
    Header[] keptHeaders() {
        List<Header> kept = new ArrayList<>();
        for (Header h : headers) {
            if (!MARKER.equals(h.key())) {
                kept.add(h);
            }
        }
        return kept.toArray(Header[]::new);
    }

    /** The allowlisted headers, original spelling, last value wins. */
    SortedMap<String, String> originalHeaders() {
        SortedMap<String, String> out = new TreeMap<>();
        for (Header h : headers) {
            if (h.key() != null && ALLOWED.contains(h.key().toLowerCase(Locale.ROOT))) {
                out.put(h.key(), text(h));
            }
        }
        return out;
    }

    /** The value of the header whose key is exactly {@code content-type}, or empty. */
    String contentType() {
        String type = "";
        for (Header h : headers) {
            if ("content-type".equals(h.key())) {
                type = text(h);
            }
        }
        return type;
    }

    private static String text(Header h) {
        return h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }
}
