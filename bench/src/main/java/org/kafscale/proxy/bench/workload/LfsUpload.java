package org.kafscale.proxy.bench.workload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Large payloads: {@code POST /lfs/produce} of one payload through the proxy (which streams it to
 * S3 and produces the envelope record) against a plain S3 PUT of the same bytes to the same S3
 * server. Pluggable: when the proxy serves no LFS API (a build without it), {@link #unavailable}
 * says so and the benchmark reports that instead of a number.
 */
public final class LfsUpload {
    private final URI lfs;
    private final S3Client s3;
    private final String bucket;
    private final HttpClient http = HttpClient.newHttpClient();

    public LfsUpload(URI lfs, S3Client s3, String bucket) {
        this.lfs = lfs;
        this.s3 = s3;
        this.bucket = bucket;
    }

    /** Why the proxy's LFS API cannot be measured, or empty when it answers. */
    public Optional<String> unavailable() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(lfs.getHost(), lfs.getPort()), 1000);
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("not available in this build (no LFS listener at " + lfs.getAuthority() + ")");
        }
    }

    /** Bytes per second of one {@code /lfs/produce} of {@code payload} into {@code topic}. */
    public double throughProxy(String topic, byte[] payload) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(lfs.resolve("/lfs/produce"))
                .header("X-Kafka-Topic", topic)
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(payload))
                .build();
        long start = System.nanoTime();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        long elapsed = System.nanoTime() - start;
        if (response.statusCode() != 200) {
            throw new IllegalStateException("/lfs/produce answered " + response.statusCode() + ": " + response.body());
        }
        return payload.length / (elapsed / 1e9);
    }

    /** Bytes per second of one S3 PUT of {@code payload}, straight to the S3 server; the object is then deleted. */
    public double direct(byte[] payload) {
        String key = "bench/direct/" + UUID.randomUUID();
        long start = System.nanoTime();
        s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(payload));
        long elapsed = System.nanoTime() - start;
        s3.deleteObject(b -> b.bucket(bucket).key(key));
        return payload.length / (elapsed / 1e9);
    }
}
