package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class KafscaleEtcdWriterTest {

    @Test
    void derivedTopicIdIsTheFirstSixteenBytesOfTheSha1OfTheName() throws Exception {
        // Given the digest computed here, independently of the writer
        byte[] sha1 = MessageDigest.getInstance("SHA-1").digest("orders".getBytes(StandardCharsets.UTF_8));
        byte[] expected = Arrays.copyOf(sha1, 16);

        // When
        Uuid derived = KafscaleEtcdWriter.derivedTopicId("orders");

        // Then it matches the digest, and the value Go's TopicIDForName gives (sha1("orders") = 96584038...)
        assertArrayEquals(expected, KafscaleEtcdWriter.topicIdBytes(derived));
        assertArrayEquals(new byte[] {(byte) 150, 88, 64, 56, 22, 64, (byte) 158, 102,
                (byte) 235, (byte) 162, 23, 95, (byte) 142, (byte) 255, (byte) 139, 83}, KafscaleEtcdWriter.topicIdBytes(derived));
        assertEquals("llhAOBZAnmbrohdfjv-LUw", derived.toString());
    }

    @Test
    void topicIdBytesAreTheMostThenLeastSignificantBitsBigEndian() {
        // Given
        Uuid id = new Uuid(0x0102030405060708L, 0x90A0B0C0D0E0F0FFL);

        // When
        byte[] bytes = KafscaleEtcdWriter.topicIdBytes(id);

        // Then
        assertArrayEquals(ByteBuffer.allocate(16).putLong(0x0102030405060708L).putLong(0x90A0B0C0D0E0F0FFL).array(), bytes);
        assertEquals(1, bytes[0]);
        assertEquals((byte) 0xFF, bytes[15]);
    }

    @Test
    void stringsAreEscapedAsGoEncodingJsonDoes() {
        // Go: json.Marshal("a\"\\\b\f\n\r\t\x01<>&\u2028\u2029é\x7f")
        String go = "\"a\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u003c\\u003e\\u0026\\u2028\\u2029é\u007f\"";

        assertEquals(go, KafscaleEtcdWriter.goJsonString("a\"\\\b\f\n\r\t\u0001<>&\u2028\u2029é\u007f"));
    }
}
