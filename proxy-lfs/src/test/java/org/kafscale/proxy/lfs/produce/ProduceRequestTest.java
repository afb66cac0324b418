package org.kafscale.proxy.lfs.produce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsTopicNames;

class ProduceRequestTest {

    @Test
    void headersAreDecoded() {
        ProduceRequest request = ProduceRequest.parse(new DefaultHttpHeaders()
                .add("X-Kafka-Topic", "t").add("X-Kafka-Key", "a2V5").add("X-Kafka-Partition", "2")
                .add("X-LFS-Checksum", "ABC").add("X-LFS-Checksum-Alg", "MD5").add("Content-Type", "image/png")
                .add("Content-Length", "10"), new LfsTopicNames(249), ChecksumAlg.SHA256, 100);

        assertEquals("t", request.topic());
        assertArrayEquals("key".getBytes(StandardCharsets.UTF_8), request.key());
        assertEquals(2, request.partition().getAsInt());
        assertEquals("abc", request.checksum());
        assertEquals(ChecksumAlg.MD5, request.alg());
        assertEquals("image/png", request.contentType());
        assertEquals(10, request.contentLength().getAsLong());
    }

    @Test
    void theConfiguredAlgorithmIsTheDefault() {
        ProduceRequest request = ProduceRequest.parse(new DefaultHttpHeaders().add("X-Kafka-Topic", "t"),
                new LfsTopicNames(249), ChecksumAlg.CRC32, 100);
        assertEquals(ChecksumAlg.CRC32, request.alg());
        assertEquals(null, request.key());
    }

    @Test
    void anOversizedContentTypeIsRefused() {
        LfsException error = assertThrows(LfsException.class, () -> ProduceRequest.parse(new DefaultHttpHeaders()
                .add("X-Kafka-Topic", "t").add("Content-Type", "text/" + "x".repeat(300)), new LfsTopicNames(249),
                ChecksumAlg.SHA256, 100));
        assertEquals("invalid_request", error.code());
    }

    @Test
    void anInternalTopicIsRefused() {
        LfsException error = assertThrows(LfsException.class, () -> ProduceRequest.parse(new DefaultHttpHeaders()
                .add("X-Kafka-Topic", "__lfs_ops_state"), new LfsTopicNames(249), ChecksumAlg.SHA256, 100));
        assertEquals("invalid_topic", error.code());
    }
}
