package org.kafscale.proxy.lfs.uploads;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.lfs.publish.EnvelopePublisher;
import org.kafscale.proxy.lfs.publish.PublishTarget;
import org.kafscale.proxy.lfs.s3.ObjectKeys;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;

import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * {@code POST /lfs/uploads}: connects to the partition's owner first (no broker, no S3 upload),
 * then starts the S3 multipart upload and stores the session.
 */
final class UploadStarter {

    private final UploadSessionStore store;
    private final S3AsyncClient s3;
    private final ObjectKeys keys;
    private final EnvelopePublisher publisher;
    private final UploadEnder ender;
    private final UploadSettings settings;
    private final LfsMetrics metrics;
    private final LfsTracker tracker;
    private final TrackerEvents events;
    private final Clock clock;

    UploadStarter(UploadSessionStore store, S3AsyncClient s3, ObjectKeys keys, EnvelopePublisher publisher,
                  UploadEnder ender, UploadSettings settings, LfsMetrics metrics, LfsTracker tracker,
                  TrackerEvents events, Clock clock) {
        this.store = store;
        this.s3 = s3;
        this.keys = keys;
        this.publisher = publisher;
        this.ender = ender;
        this.settings = settings;
        this.metrics = metrics;
        this.tracker = tracker;
        this.events = events;
        this.clock = clock;
    }

    CompletableFuture<InitResponse> start(InitRequest request, String requestId, String clientIp) {
        return publisher.prepare(request.topic(), request.partition(), request.keyBytes())
                .thenCompose(target -> startS3Upload(request, target, keys.newKey(request.topic())))
                .thenCompose(session -> store.create(session)
                        .handle((created, error) -> {
                            if (error == null && created) {
                                return CompletableFuture.completedFuture(session);
                            }
                            // Without a session nobody could ever complete or abort this upload.
                            Throwable failure = error != null ? error
                                    : new SessionStoreException("upload id " + session.id() + " already taken", null);
                            return ender.abort(session).<UploadSession>thenCompose(v -> CompletableFuture.failedFuture(failure));
                        })
                        .thenCompose(f -> f))
                .thenApply(session -> {
                    tracker.emit(events.uploadStarted(requestId, session.topic(), session.partition(),
                            session.objectKey(), session.contentType(), session.sizeBytes(), clientIp,
                            TrackerEvents.API_HTTP_CHUNKED));
                    return new InitResponse(session.id(), session.objectKey(), session.partSize(), session.expiresAt());
                });
    }

    private CompletableFuture<UploadSession> startS3Upload(InitRequest request, PublishTarget target, String objectKey) {
        return s3.createMultipartUpload(b -> b.bucket(settings.bucket()).key(objectKey).contentType(request.contentType()))
                .exceptionally(error -> {
                    metrics.s3Error();
                    throw UploadErrors.s3Failed("cannot start the multipart upload", error);
                })
                .thenApply(created -> {
                    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
                    SessionDigests.State digests = SessionDigests.start(request.checksumAlg()).state();
                    return new UploadSession(UUID.randomUUID().toString(), settings.bucket(), objectKey,
                            created.uploadId(), request.topic(), target.partition(), target.topicId().toString(),
                            request.recordKey(), request.contentType(), request.sizeBytes(), settings.partSize(),
                            request.checksumAlg().wireName(), request.checksum(), now.toString(),
                            now.plus(settings.sessionTtl()).toString(), List.of(), 0,
                            digests.sha256(), digests.checksum(), false, null);
                });
    }
}
