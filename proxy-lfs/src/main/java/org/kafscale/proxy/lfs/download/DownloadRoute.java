package org.kafscale.proxy.lfs.download;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.LfsContext;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsExchange;
import org.kafscale.proxy.lfs.http.PostRoute;
import org.kafscale.proxy.lfs.limits.ConcurrencyGate;
import org.kafscale.proxy.lfs.s3.UnreadBodies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;

/**
 * {@code POST /lfs/download} (spec §4.5). Stream mode reads the object once into a temporary file
 * while hashing it and sends nothing until size and SHA-256 match the caller's claim; the
 * verified file then goes to the socket without passing through the heap. Presign mode (when
 * enabled) answers with a presigned GET URL, and the caller verifies.
 *
 * <p>A stream download is bounded before it costs anything: it holds a download permit while it
 * copies (503 {@code busy} past the bound), an object whose size (HeadObject's Content-Length) is
 * not the claimed size is refused before it is read, and the temp bytes of all downloads are
 * reserved against one budget (503 {@code busy} when it is spent) until each file is deleted.
 */
public final class DownloadRoute implements PostRoute {
    public static final String PATH = "/lfs/download";
    private static final Logger LOGGER = LoggerFactory.getLogger(DownloadRoute.class);
    private static final int MAX_BODY = 64 * 1024;
    private static final String OCTET_STREAM = "application/octet-stream";

    private final LfsContext context;

    public DownloadRoute(LfsContext context) {
        this.context = context;
    }

    @Override
    public String path() {
        return PATH;
    }

    @Override
    public void handle(LfsExchange exchange) {
        exchange.readBody(MAX_BODY)
                .thenApply(body -> DownloadRequest.parse(body, context.settings().s3().bucket(), context.keys(),
                        context.settings().presignEnabled(), context.settings().maxBlobSize()))
                .thenCompose(request -> {
                    long ttl = DownloadRequest.PRESIGN.equals(request.mode()) ? ttlSeconds(request) : 0;
                    context.tracker().emit(context.events().downloadRequested(exchange.requestId(), request.bucket(),
                            request.key(), request.mode(), exchange.clientIp(), ttl).by(exchange.principal()));
                    return DownloadRequest.PRESIGN.equals(request.mode()) ? presign(exchange, request, ttl)
                            : stream(exchange, request);
                })
                .whenComplete((v, error) -> {
                    if (error != null) {
                        exchange.fail(error);
                    }
                });
    }

    private long ttlSeconds(DownloadRequest request) {
        long max = context.settings().downloadTtl().toSeconds();
        return request.expiresSeconds() > 0 ? Math.min(request.expiresSeconds(), max) : max;
    }

    // ---- presign ----

    private CompletableFuture<Void> presign(LfsExchange exchange, DownloadRequest request, long ttl) {
        long started = System.nanoTime();
        // Presigning may resolve credentials from the environment (files, metadata service): off the event loop.
        return CompletableFuture.supplyAsync(() -> context.presigner().presignGetObject(p -> p
                        .signatureDuration(Duration.ofSeconds(ttl))
                        .getObjectRequest(g -> g.bucket(request.bucket()).key(request.key()))), context.blocking())
                .handle((PresignedGetObjectRequest presigned, Throwable error) -> {
                    if (error != null) {
                        context.metrics().s3Error();
                        throw new LfsException(502, "s3_presign_failed", "presign failed: " + rootMessage(error));
                    }
                    Map<String, Object> integrity = new LinkedHashMap<>();
                    integrity.put("sha256", request.sha256());
                    integrity.put("checksum_alg", "sha256");
                    if (request.size() != 0) {
                        integrity.put("size", request.size());
                    }
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("mode", DownloadRequest.PRESIGN);
                    body.put("url", presigned.url().toString());
                    body.put("expires_at", presigned.expiration().truncatedTo(ChronoUnit.SECONDS).toString());
                    body.put("integrity", integrity);
                    exchange.respondJson(200, body);
                    context.tracker().emit(context.events().downloadCompleted(exchange.requestId(), request.key(),
                            DownloadRequest.PRESIGN, millisSince(started), 0).by(exchange.principal()));
                    return null;
                });
    }

    // ---- stream ----

    private CompletableFuture<Void> stream(LfsExchange exchange, DownloadRequest request) {
        long started = System.nanoTime();
        ConcurrencyGate.Permit permit = context.limits().downloads().acquire(exchange.clientIp());
        return context.s3().headObject(h -> h.bucket(request.bucket()).key(request.key()))
                .exceptionally(error -> {
                    context.metrics().s3Error();
                    throw new LfsException(502, "s3_get_failed", "S3 get failed: " + rootMessage(error));
                })
                .thenAccept(head -> admit(exchange, request, head.contentLength()))
                .thenCompose(admitted -> copy(exchange, request))
                .whenComplete((verified, error) -> permit.close())
                .thenAccept(verified -> {
                    Map<String, String> headers = Map.of("X-Kafscale-LFS-Checksum", "sha256=" + request.sha256(),
                            "X-Kafscale-LFS-Content-Length", String.valueOf(request.size()));
                    exchange.respondFile(verified.file(), request.size(), verified.contentType(), headers,
                            () -> context.blocking().execute(() -> {
                                deleteQuietly(verified.file());
                                context.limits().temp().release(request.size());
                            }));
                    context.tracker().emit(context.events().downloadCompleted(exchange.requestId(), request.key(),
                            DownloadRequest.STREAM, millisSince(started), request.size()).by(exchange.principal()));
                });
    }

    /**
     * Before a byte is read: the object's size (HeadObject) must be the claimed one, and its temp
     * bytes must fit the budget; they stay reserved until the file is deleted.
     */
    private void admit(LfsExchange exchange, DownloadRequest request, Long length) {
        if (length == null || length != request.size()) {
            String relation = length != null && length > request.size() ? "exceeds" : "does not match";
            throw integrityFailure(exchange, request, new VerifiedCopy.Outcome(0, ""), "S3 object size " + length
                    + " " + relation + " the claimed size " + request.size() + "; refusing to serve");
        }
        if (!context.limits().temp().tryReserve(request.size())) {
            throw new LfsException(503, "busy", "temporary storage for downloads is in use; retry later");
        }
    }

    /**
     * Makes the temporary file, then gets the object and copies it on the blocking pool; a failure
     * on the way removes the file and gives the reserved bytes back. The file comes first, so a
     * download that cannot have one never starts a GET whose body it would have to abandon.
     */
    private CompletableFuture<Verified> copy(LfsExchange exchange, DownloadRequest request) {
        CompletableFuture<Path> file;
        try {
            file = CompletableFuture.supplyAsync(() -> createTempFile(request), context.blocking());
        } catch (RejectedExecutionException e) {
            context.limits().temp().release(request.size());
            return CompletableFuture.failedFuture(e);
        }
        return file.thenCompose(path -> context.s3().getObject(g -> g.bucket(request.bucket()).key(request.key()),
                        AsyncResponseTransformer.toBlockingInputStream())
                .handle((object, error) -> {
                    if (error != null) {
                        deleteQuietly(path);
                        context.limits().temp().release(request.size());
                        context.metrics().s3Error();
                        throw new LfsException(502, "s3_get_failed", "S3 get failed: " + rootMessage(error));
                    }
                    return object;
                })
                .thenCompose(object -> {
                    try {
                        return CompletableFuture.supplyAsync(() -> verify(exchange, request, object, path),
                                context.blocking());
                    } catch (RejectedExecutionException e) {
                        UnreadBodies.abandon(object);
                        deleteQuietly(path);
                        context.limits().temp().release(request.size());
                        return CompletableFuture.failedFuture(e);
                    }
                }));
    }

    /** Blocking: a temporary file for one download; when none can be made, the reserved bytes go back. */
    private Path createTempFile(DownloadRequest request) {
        try {
            return Files.createTempFile(context.settings().tempDir(), "kafscale-lfs-verify-", "");
        } catch (IOException e) {
            context.limits().temp().release(request.size());
            throw new LfsException(500, "temp_storage_failed", "cannot create a temporary file: " + e.getMessage());
        }
    }

    /**
     * Blocking: copies and hashes into the temporary file; the file is removed (and its reserved
     * bytes given back) unless verification passed.
     */
    private Verified verify(LfsExchange exchange, DownloadRequest request,
                            ResponseInputStream<GetObjectResponse> object, Path file) {
        boolean keep = false;
        try (object) {
            VerifiedCopy.Outcome outcome = VerifiedCopy.copy(object, file, request.size());
            if (outcome.bytesRead() > request.size()) {
                throw integrityFailure(exchange, request, outcome,
                        "S3 object exceeds envelope-declared size; refusing to serve");
            }
            if (outcome.bytesRead() != request.size() || !outcome.sha256().equals(request.sha256())) {
                throw integrityFailure(exchange, request, outcome, "S3 object does not match the integrity claim");
            }
            String type = object.response().contentType();
            keep = true;
            return new Verified(file, type == null || type.isEmpty() ? OCTET_STREAM : type);
        } catch (VerifiedCopy.TempStorageException e) {
            throw new LfsException(500, "temp_storage_failed", "cannot write the temporary file: " + e.getMessage());
        } catch (IOException e) {
            context.metrics().s3Error();
            throw new LfsException(502, "s3_get_failed", "S3 read failed: " + e.getMessage());
        } finally {
            if (!keep) {
                UnreadBodies.abandon(object);
                deleteQuietly(file);
                context.limits().temp().release(request.size());
            }
        }
    }

    private LfsException integrityFailure(LfsExchange exchange, DownloadRequest request, VerifiedCopy.Outcome outcome,
                                          String message) {
        LOGGER.warn("lfs download integrity failure key={} expected_sha256={} actual_sha256={} bytes_read={}",
                request.key(), request.sha256(), outcome.sha256(), outcome.bytesRead());
        context.tracker().emit(context.events().downloadIntegrityFailed(exchange.requestId(), request.bucket(),
                request.key(), DownloadRequest.STREAM, request.sha256(), outcome.sha256(), outcome.bytesRead(),
                request.size()).by(exchange.principal()));
        return new LfsException(502, "integrity_failure", message);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOGGER.warn("cannot delete the temporary download file {}: {}", file, e.toString());
        }
    }

    private static String rootMessage(Throwable error) {
        return String.valueOf(Async.unwrap(error).getMessage());
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private record Verified(Path file, String contentType) {
    }
}
