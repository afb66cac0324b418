package org.kafscale.proxy.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * LFS uploads and downloads through one proxy replica's HTTP API ({@code /lfs/produce},
 * {@code /lfs/download}, docs/lfs.md): one upload every {@value #EVERY_MILLIS} ms of a payload
 * whose size is drawn from small (1 to 256 KiB), medium (1 to 3 MiB, one streamed PUT) and large
 * (5 to 7 MiB, sent chunked, so a multipart upload), each with its SHA-256 for the proxy to check.
 * Every envelope answered is remembered by object key; every third one is downloaded back
 * (retried until it succeeds) and its bytes compared. An upload that fails may leave an object
 * behind (the proxy keeps it when the record may exist): such uploads are counted, they bound the
 * orphans the end check may find.
 */
final class LfsTraffic implements Workload, AutoCloseable {
    static final long EVERY_MILLIS = 3000;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What an answered upload promised: the object and its SHA-256 and size. */
    record Uploaded(String bucket, String key, String sha256, long size) {
    }

    private final String name;
    private final URI base;
    private final String topic;
    private final Random random;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<String, Uploaded> uploaded = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> failures = new ConcurrentSkipListMap<>();
    private final Deque<Uploaded> toDownload = new ConcurrentLinkedDeque<>();
    private final AtomicLong uploadFailed = new AtomicLong();
    private final AtomicLong bytesUploaded = new AtomicLong();
    private final AtomicLong downloadsVerified = new AtomicLong();
    private final AtomicLong downloadErrors = new AtomicLong();
    private final AtomicLong downloadMismatches = new AtomicLong();
    private final AtomicLong lastUploadNanos = new AtomicLong(System.nanoTime());
    private final Thread thread;
    private volatile boolean stopped;

    LfsTraffic(String name, URI base, String topic, long seed) {
        this.name = name;
        this.base = base;
        this.topic = topic;
        this.random = new Random(seed);
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long next = System.nanoTime();
        for (long n = 0; !stopped; n++) {
            try {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                next += EVERY_MILLIS * 1_000_000;
                upload(n);
                downloadOne();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void upload(long n) throws InterruptedException {
        int kind = random.nextInt(20);
        int size = kind < 13 ? 1024 + random.nextInt(255 * 1024)
                : kind < 18 ? (1 << 20) + random.nextInt(2 << 20) : (5 << 20) + random.nextInt(2 << 20);
        boolean chunked = kind >= 18;
        byte[] payload = new byte[size];
        random.nextBytes(payload);
        String sha256 = Sha256.of(payload);
        HttpRequest.BodyPublisher body = chunked
                ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(payload))
                : HttpRequest.BodyPublishers.ofByteArray(payload);
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/lfs/produce")).timeout(REQUEST_TIMEOUT)
                .header("X-Kafka-Topic", topic)
                .header("X-Kafka-Key", java.util.Base64.getEncoder().encodeToString((name + "-" + n).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .header("X-LFS-Checksum", sha256)
                .header("Content-Type", "application/octet-stream")
                .POST(body).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                failed("upload " + response.statusCode() + " " + code(response.body()));
                return;
            }
            JsonNode envelope = JSON.readTree(response.body());
            Uploaded done = new Uploaded(envelope.path("bucket").asText(), envelope.path("key").asText(),
                    envelope.path("sha256").asText(), envelope.path("size").asLong());
            if (!done.sha256().equals(sha256) || done.size() != size) {
                failed("upload answered with another checksum or size");
                return;
            }
            uploaded.put(done.key(), done);
            bytesUploaded.addAndGet(size);
            lastUploadNanos.set(System.nanoTime());
            if (n % 3 == 0) {
                toDownload.add(done);
            }
        } catch (IOException | RuntimeException e) {
            failed("upload " + e.getClass().getSimpleName());
        }
    }

    private void failed(String reason) {
        uploadFailed.incrementAndGet();
        failures.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
    }

    /** Downloads the oldest payload waiting; one that fails stays waiting for the next round. */
    private void downloadOne() throws InterruptedException {
        Uploaded wanted = toDownload.peek();
        if (wanted == null) {
            return;
        }
        String body = String.format("{\"bucket\":\"%s\",\"key\":\"%s\",\"integrity\":{\"sha256\":\"%s\",\"size\":%d}}",
                wanted.bucket(), wanted.key(), wanted.sha256(), wanted.size());
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/lfs/download")).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                if (response.statusCode() != 200) {
                    downloadErrors.incrementAndGet();
                    return;
                }
                Sha256.Sized got = Sha256.of(in);
                if (got.size() == wanted.size() && got.hex().equals(wanted.sha256())) {
                    downloadsVerified.incrementAndGet();
                } else {
                    downloadMismatches.incrementAndGet();
                }
                toDownload.poll();
            }
        } catch (IOException | RuntimeException e) {
            downloadErrors.incrementAndGet();
        }
    }

    private static String code(String errorBody) {
        try {
            return JSON.readTree(errorBody).path("code").asText("?");
        } catch (IOException e) {
            return "?";
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long lastSuccessNanos() {
        return lastUploadNanos.get();
    }

    /** Every upload answered 200, by object key; complete once {@link #close()} returned. */
    Map<String, Uploaded> uploaded() {
        return Map.copyOf(uploaded);
    }

    long uploadFailed() {
        return uploadFailed.get();
    }

    /** Why uploads failed, with how often. */
    Map<String, Long> failures() {
        Map<String, Long> copy = new java.util.TreeMap<>();
        failures.forEach((k, v) -> copy.put(k, v.get()));
        return copy;
    }

    long bytesUploaded() {
        return bytesUploaded.get();
    }

    long downloadsVerified() {
        return downloadsVerified.get();
    }

    long downloadErrors() {
        return downloadErrors.get();
    }

    long downloadMismatches() {
        return downloadMismatches.get();
    }

    /** Downloads still waiting (the last ones are retried by {@link #drainDownloads} at the end). */
    int downloadsPending() {
        return toDownload.size();
    }

    /** After {@link #close()}: retries the downloads still waiting until none is or {@code wait} is over. */
    void drainDownloads(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!toDownload.isEmpty() && System.nanoTime() < deadline) {
            downloadOne();
            if (!toDownload.isEmpty()) {
                Thread.sleep(500);
            }
        }
    }

    /**
     * Stops after the upload under way (not interrupted: an upload cut short by the client would
     * leave an object nobody counted).
     */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join();
    }
}
