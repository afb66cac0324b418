package org.kafscale.proxy.lfs.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.testkit.S3Server;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * GET bodies the proxy abandons (a download whose temporary file cannot be written, a pool that
 * refuses the copy) leave no Netty buffer behind. Without {@link UnreadBodies}' first read, about a
 * third of these streams leak inside the SDK, and the leak detector fails this class.
 */
class AbandonedBodiesIT {
    private static final String BUCKET = "abandoned";
    private static S3Server s3;
    private static S3AsyncClient client;

    @BeforeAll
    static void start() {
        s3 = S3Server.start();
        s3.createBucket(BUCKET);
        client = S3Clients.asyncClient(new S3Settings(BUCKET, "us-east-1", Optional.of(s3.endpoint()), Optional.empty(),
                s3.accessKey(), s3.secretKey(), "", true, false, Duration.ofSeconds(30)));
    }

    @AfterAll
    static void stop() {
        client.close();
        s3.close();
    }

    @Test
    void bodiesAbandonedBeforeTheirFirstReadAreReleased() {
        for (int size : new int[] {1, 1024 * 1024}) {
            String key = "object-" + size;
            client.putObject(b -> b.bucket(BUCKET).key(key), AsyncRequestBody.fromBytes(new byte[size])).join();
            for (int i = 0; i < 20; i++) {
                var body = client.getObject(g -> g.bucket(BUCKET).key(key),
                        AsyncResponseTransformer.toBlockingInputStream()).join();
                assertEquals(size, body.response().contentLength());
                UnreadBodies.abandon(body);
            }
        }
        // The leak detector (paranoid, after this class) is the assertion that matters.
    }
}
