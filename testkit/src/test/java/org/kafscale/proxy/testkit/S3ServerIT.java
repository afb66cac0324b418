package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.core.sync.RequestBody;

class S3ServerIT {

    @Test
    void objectPutIntoABucketCanBeReadBack() {
        try (S3Server s3 = S3Server.start()) {
            // Given
            s3.createBucket("payloads");
            byte[] payload = "large message body".getBytes(StandardCharsets.UTF_8);

            // When
            s3.client().putObject(b -> b.bucket("payloads").key("topic/0/42"), RequestBody.fromBytes(payload));

            // Then
            assertArrayEquals(payload, s3.client().getObjectAsBytes(b -> b.bucket("payloads").key("topic/0/42")).asByteArray());
            assertEquals("http", s3.endpoint().getScheme());
        }
    }
}
