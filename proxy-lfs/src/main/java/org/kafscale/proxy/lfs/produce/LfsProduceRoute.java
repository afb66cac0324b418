package org.kafscale.proxy.lfs.produce;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kafscale.proxy.lfs.LfsContext;
import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.checksum.PayloadDigests;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsExchange;
import org.kafscale.proxy.lfs.http.PostRoute;
import org.kafscale.proxy.lfs.http.LfsTopicNames;
import org.kafscale.proxy.lfs.limits.ConcurrencyGate;
import org.kafscale.proxy.lfs.limits.PacedExchange;
import org.kafscale.proxy.lfs.publish.PublishTarget;
import org.kafscale.proxy.lfs.s3.StreamedPut;
import org.kafscale.proxy.lfs.s3.StreamingUpload;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;

/**
 * {@code POST /lfs/produce} (spec §4.3 with the seed report's order): validate the headers,
 * connect to the partition's owner, stream the body to S3 while hashing it, check the client's
 * checksum, then produce the envelope and answer with it. Every failure after the upload leaves
 * the bucket settled (object deleted, or counted as an orphan) before the client hears.
 *
 * <p>Each produce holds an upload permit from its start to its answer, since its body holds an S3
 * connection: past the bound it is answered 503 {@code busy} before anything is read or connected.
 * Its body must keep the minimum rate ({@link PacedExchange}), so a trickling client lets go soon.
 */
public final class LfsProduceRoute implements PostRoute {
    public static final String PATH = "/lfs/produce";

    private final LfsContext context;
    private final LfsTopicNames topics;

    public LfsProduceRoute(LfsContext context) {
        this.context = context;
        this.topics = new LfsTopicNames(context.settings().topicMaxLength());
    }

    @Override
    public String path() {
        return PATH;
    }

    @Override
    public void handle(LfsExchange exchange) {
        LfsSettings settings = context.settings();
        ProduceRequest request;
        try {
            request = ProduceRequest.parse(exchange.headers(), topics, settings.defaultChecksum(), settings.maxBlobSize());
        } catch (LfsException e) {
            context.metrics().request(exchange.headers().get("X-Kafka-Topic", ""), false);
            throw e;
        }
        ConcurrencyGate.Permit permit;
        try {
            permit = context.limits().uploads().acquire(exchange.clientIp());
        } catch (LfsException e) {
            context.metrics().request(request.topic(), false);
            throw e;
        }
        long started = System.nanoTime();
        context.publisher().prepare(request.topic(), request.partition(), request.key())
                .thenCompose(target -> upload(exchange, request, target, started))
                .whenComplete((envelope, error) -> {
                    permit.close();
                    context.metrics().request(request.topic(), error == null);
                    if (error != null) {
                        exchange.fail(error);
                        return;
                    }
                    context.metrics().observeUpload(System.nanoTime() - started);
                    context.metrics().addUploadBytes(envelope.size());
                    byte[] json = EnvelopeCodec.encode(envelope);
                    byte[] body = new byte[json.length + 1];
                    System.arraycopy(json, 0, body, 0, json.length);
                    body[json.length] = '\n';
                    exchange.respondBytes(200, "application/json", body);
                });
    }

    private CompletableFuture<Envelope> upload(LfsExchange exchange, ProduceRequest request, PublishTarget target,
                                               long started) {
        LfsSettings settings = context.settings();
        String key = context.keys().newKey(request.topic());
        String requestId = exchange.requestId();
        context.tracker().emit(context.events().uploadStarted(requestId, request.topic(), target.partition(), key,
                request.contentType(), request.contentLength().orElse(-1), exchange.clientIp(), TrackerEvents.API_HTTP)
                .by(exchange.principal()));
        PayloadDigests digests = new PayloadDigests(request.alg());
        return store(exchange, request, key, digests)
                .whenComplete((r, error) -> {
                    if (error != null) {
                        LfsException e = LfsException.unwrap(error);
                        if (e != null && e.status() == 502) {
                            context.metrics().s3Error();
                        }
                        context.tracker().emit(context.events().uploadFailed(requestId, request.topic(), key,
                                e == null ? "s3_upload_failed" : e.code(), String.valueOf(error.getMessage()),
                                "s3_upload", digests.size(), millisSince(started)).by(exchange.principal()));
                    }
                })
                .thenCompose(result -> verifyChecksum(request, key, requestId, exchange.principal(), result, started))
                .thenCompose(result -> {
                    Envelope envelope = Envelope.of(settings.s3().bucket(), key, result.size(), result.sha256(),
                            result.checksum(), result.alg().wireName(), request.contentType(),
                            Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), settings.proxyId());
                    return context.publisher().publish(target, envelope, request.key(), requestId)
                            .whenComplete((v, error) -> {
                                if (error == null) {
                                    context.tracker().emit(context.events().uploadCompleted(requestId, request.topic(),
                                            target.partition(), settings.s3().bucket(), key, result.size(),
                                            result.sha256(), result.checksum(), result.alg().wireName(),
                                            millisSince(started), request.contentType()).by(exchange.principal()));
                                } else {
                                    LfsException e = LfsException.unwrap(error);
                                    context.tracker().emit(context.events().uploadFailed(requestId, request.topic(),
                                            key, e == null ? "backend_error" : e.code(), String.valueOf(error.getMessage()),
                                            "kafka_produce", result.size(), millisSince(started))
                                            .by(exchange.principal()));
                                }
                            })
                            .thenApply(v -> envelope);
                });
    }

    /** One streamed PUT when the declared length suits it, otherwise a multipart upload (see {@link StreamedPut}). */
    private CompletableFuture<PayloadDigests.Result> store(LfsExchange exchange, ProduceRequest request, String key,
                                                          PayloadDigests digests) {
        LfsSettings settings = context.settings();
        LfsExchange paced = PacedExchange.of(exchange, settings.limits());
        if (StreamedPut.suits(request.contentLength())) {
            return StreamedPut.store(context.s3(), settings.s3().bucket(), key, request.contentLength().getAsLong(),
                    paced, digests, context.blocking());
        }
        StreamingUpload upload = new StreamingUpload(context.s3(), settings.s3().bucket(), key, settings.chunkSize(),
                settings.maxBlobSize(), paced, digests, context.blocking());
        paced.streamBody(upload);
        return upload.result();
    }

    /** A checksum the client sent must match; otherwise the object goes and nothing is produced. */
    private CompletableFuture<PayloadDigests.Result> verifyChecksum(ProduceRequest request, String key, String requestId,
                                                                    Optional<String> principal,
                                                                    PayloadDigests.Result result, long started) {
        if (request.checksum().isEmpty() || request.checksum().equals(result.checksum())) {
            return CompletableFuture.completedFuture(result);
        }
        LfsException mismatch = LfsException.badRequest("checksum_mismatch",
                "checksum mismatch: expected " + request.checksum() + " got " + result.checksum());
        context.tracker().emit(context.events().uploadFailed(requestId, request.topic(), key, mismatch.code(),
                mismatch.getMessage(), "validation", result.size(), millisSince(started)).by(principal));
        return context.janitor().deleteUnsent(request.topic(), key, requestId, "checksum mismatch")
                .thenCompose(v -> CompletableFuture.failedFuture(mismatch));
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
