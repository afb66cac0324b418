package org.kafscale.proxy.lfs.rewrite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.RecordEdits;

/** Which records of a Produce go to S3 by size, and what the envelope record keeps. */
class OffloadSelectionTest {
    private static final int THRESHOLD = 1024;
    private static final OffloadSettings OFFLOAD = new OffloadSettings(
            List.of(Pattern.compile("media\\..*"), Pattern.compile("uploads")), THRESHOLD);

    @Test
    void topicsMatchOnlyWhenAPatternCoversTheWholeName() {
        assertTrue(OFFLOAD.appliesTo("media.video"));
        assertTrue(OFFLOAD.appliesTo("uploads"));
        assertFalse(OFFLOAD.appliesTo("old-uploads"), "a pattern must match the whole name, not a part");
        assertFalse(OFFLOAD.appliesTo("uploads-2"));
        assertFalse(OFFLOAD.appliesTo("mediaXvideo"));
        assertFalse(OFFLOAD.appliesTo(null));
        assertFalse(OffloadSettings.OFF.appliesTo("uploads"));
    }

    @Test
    void aValueOverTheThresholdIsOffloadedAndOneAtItIsNot() {
        assertTrue(select(record(new byte[THRESHOLD + 1])).isPresent());
        assertTrue(select(record(new byte[THRESHOLD])).isEmpty());
        assertTrue(select(record(new byte[0])).isEmpty());
    }

    @Test
    void tombstonesPassUnchanged() {
        RecordEdits.EditableRecord tombstone = new RecordEdits.EditableRecord(new RecordEdits.Position(0, 0),
                new Header[0], null);
        assertTrue(select(tombstone).isEmpty());
    }

    @Test
    void anOffloadedRecordKeepsEveryHeaderAndItsValue() {
        // Given
        byte[] value = filled(THRESHOLD * 3);
        Header[] headers = {header("content-type", "video/mp4"), header("x-request-id", "r-1"),
            header("tenant", "blue")};
        // When
        LfsBlob blob = select(new RecordEdits.EditableRecord(new RecordEdits.Position(2, 7), headers,
                ByteBuffer.wrap(value))).orElseThrow();
        // Then
        assertTrue(blob.bySize());
        assertArrayEquals(value, blob.value());
        assertEquals(new RecordEdits.Position(2, 7), blob.position());
        assertEquals(List.of("content-type", "x-request-id", "tenant"),
                Arrays.stream(blob.keptHeaders()).map(Header::key).toList());
        assertEquals("video/mp4", blob.contentType());
        assertEquals("r-1", blob.originalHeaders().get("x-request-id"));
        assertFalse(blob.originalHeaders().containsKey("tenant"), "only allowlisted headers go into the envelope");
        assertEquals("", blob.expected(), "no checksum to verify without LFS_BLOB");
        assertEquals("sha256", blob.alg());
    }

    @Test
    void aValueThatIsAlreadyAnEnvelopeIsNotWrappedAgain() {
        byte[] envelope = ("{\"kfs_lfs\":1,\"bucket\":\"b\",\"key\":\"k\",\"size\":1,\"sha256\":\"" + "0".repeat(64)
                + "\",\"padding\":\"" + "x".repeat(THRESHOLD) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertTrue(select(record(envelope)).isEmpty());
    }

    @Test
    void anLfsBlobChecksumOnALargeRecordIsHonouredAndTheMarkerDropped() {
        // Given: an offload topic that is not a rewrite topic
        Header[] headers = {header("LFS_BLOB", " ABC "), header("other", "kept")};
        // When
        LfsBlob blob = LfsBlob.of(new RecordEdits.EditableRecord(new RecordEdits.Position(0, 0), headers,
                ByteBuffer.wrap(filled(THRESHOLD + 1))), "sha256", false, OFFLOAD).orElseThrow();
        // Then
        assertEquals("abc", blob.expected());
        assertEquals(List.of("other"), Arrays.stream(blob.keptHeaders()).map(Header::key).toList());
    }

    @Test
    void aSmallMarkedRecordIsRewrittenOnlyOnARewriteTopic() {
        RecordEdits.EditableRecord marked = new RecordEdits.EditableRecord(new RecordEdits.Position(0, 0),
                new Header[] {header("LFS_BLOB", "")}, ByteBuffer.wrap(filled(10)));
        assertTrue(LfsBlob.of(marked, "sha256", false, OFFLOAD).isEmpty(), "offload alone selects by size");
        LfsBlob blob = LfsBlob.of(marked, "sha256", true, OFFLOAD).orElseThrow();
        assertFalse(blob.bySize(), "chosen for its marker, so not counted as offloaded");
    }

    private static Optional<LfsBlob> select(RecordEdits.EditableRecord record) {
        return LfsBlob.of(record, "sha256", false, OFFLOAD);
    }

    private static RecordEdits.EditableRecord record(byte[] value) {
        return new RecordEdits.EditableRecord(new RecordEdits.Position(0, 0), new Header[0], ByteBuffer.wrap(value));
    }

    private static byte[] filled(int length) {
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) 'v');
        return value;
    }

    private static Header header(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }
}
