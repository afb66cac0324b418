package org.kafscale.proxy.lfs.envelope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class EnvelopeCodecTest {

    @Test
    void httpEnvelopeHasKafscalesBytes() {
        // Given: the example of spec §4.8
        Envelope envelope = Envelope.of("my-bucket", "default/video-uploads/lfs/2026/02/05/obj-3b1f", 10485760,
                "e3b0b855", "e3b0b855", "sha256", "video/mp4", "2026-02-05T10:30:00Z", "lfs-proxy-0");
        // When
        String json = new String(EnvelopeCodec.encode(envelope), StandardCharsets.UTF_8);
        // Then
        assertEquals("{\"kfs_lfs\":1,\"bucket\":\"my-bucket\",\"key\":\"default/video-uploads/lfs/2026/02/05/obj-3b1f\","
                + "\"size\":10485760,\"sha256\":\"e3b0b855\",\"checksum\":\"e3b0b855\",\"checksum_alg\":\"sha256\","
                + "\"content_type\":\"video/mp4\",\"created_at\":\"2026-02-05T10:30:00Z\",\"proxy_id\":\"lfs-proxy-0\"}",
                json);
    }

    @Test
    void emptyOptionalFieldsAreLeftOutAndHeadersAreSortedLikeAGoMap() {
        TreeMap<String, String> headers = new TreeMap<>();
        headers.put("traceparent", "00-1");
        headers.put("Content-Type", "a<b>&c");
        Envelope envelope = new Envelope(1, "b", "k", 0, "s", "", "none", "", headers, "2026-01-01T00:00:00Z", "");

        String json = new String(EnvelopeCodec.encode(envelope), StandardCharsets.UTF_8);

        assertEquals("{\"kfs_lfs\":1,\"bucket\":\"b\",\"key\":\"k\",\"size\":0,\"sha256\":\"s\",\"checksum_alg\":\"none\","
                + "\"original_headers\":{\"Content-Type\":\"a\\u003cb\\u003e\\u0026c\",\"traceparent\":\"00-1\"},"
                + "\"created_at\":\"2026-01-01T00:00:00Z\"}", json);
    }

    @Test
    void stringsAreEscapedAsGoDoes() {
        StringBuilder out = new StringBuilder();
        GoJson.quote(out, "q\"b\\\b\f\n\r\t\u0001\u2028\u2029é\uD83D\uDE00\uD800x");
        assertEquals("\"q\\\"b\\\\\\b\\f\\n\\r\\t\\u0001\\u2028\\u2029é\uD83D\uDE00\ufffdx\"", out.toString());
    }

    @Test
    void decodeRoundTripsAndRefusesIncompleteEnvelopes() {
        Envelope envelope = Envelope.of("b", "k", 5, "abc", "", "sha256", "text/plain", "2026-01-01T00:00:00Z", "");
        assertEquals(envelope, EnvelopeCodec.decode(EnvelopeCodec.encode(envelope)));
        assertThrows(IllegalArgumentException.class, () -> EnvelopeCodec.decode(
                "{\"kfs_lfs\":1,\"bucket\":\"b\",\"key\":\"k\"}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> EnvelopeCodec.decode("[]".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> EnvelopeCodec.encode(
                Envelope.of("", "k", 1, "s", "", "", "", "", "")));
    }

    @Test
    void detectionFollowsTheSdkRule() {
        Envelope envelope = Envelope.of("b", "k", 5, "abc", "", "sha256", "", "2026-01-01T00:00:00Z", "");
        assertTrue(EnvelopeCodec.looksLikeEnvelope(EnvelopeCodec.encode(envelope)));
        assertFalse(EnvelopeCodec.looksLikeEnvelope("{\"kfs_lfs\":1}".getBytes(StandardCharsets.UTF_8)), "too short");
        assertFalse(EnvelopeCodec.looksLikeEnvelope(("{\"a\":\"" + "x".repeat(50) + "\",\"kfs_lfs\":1}")
                .getBytes(StandardCharsets.UTF_8)), "marker past 50 bytes");
        assertFalse(EnvelopeCodec.looksLikeEnvelope(" {\"kfs_lfs\":1,\"bucket\":\"b\"}".getBytes(StandardCharsets.UTF_8)));
    }
}
