package org.kafscale.proxy.lfs.uploads;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.publish.PublishTarget;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;


/**
 * {@code POST /lfs/uploads}: connects to the partition's owner first (no broker, no S3 upload),
 * then starts the S3 multipart upload and stores the session.
 */
final class UploadStarter {

    private final UploadServices services;
    private final UploadEnder ender;

    UploadStarter(UploadServices services, UploadEnder ender) {
        this.services = services;
        this.ender = ender;
    }

    CompletableFuture<InitResponse> start(InitRequest request, String requestId, String clientIp,
                                          Optional<String> principal) {
        return services.publisher().prepare(request.topic(), request.partition(), request.keyBytes())
                .thenCompose(target -> startS3Upload(request, target, services.keys().newKey(request.topic())))
                .thenCompose(session -> services.store().create(session)
                        .handle((created, error) -> {
                            if (error == null && created) {
                                return CompletableFuture.completedFuture(session);
                            }
                            // Without a session nobody could ever complete or abort this upload.
                            Throwable failure = error != null ? error
                                    : new SessionStoreException("upload id " + session.id() + " already taken", null);
                            return ender.abort(session)
                                    .<UploadSession>thenCompose(v -> CompletableFuture.failedFuture(failure));
                        })
                        .thenCompose(f -> f))
                .thenApply(session -> {
                    services.tracker().emit(services.events().uploadStarted(requestId, session.topic(),
                            session.partition(), session.objectKey(), session.contentType(), session.sizeBytes(),
                            clientIp, TrackerEvents.API_HTTP_CHUNKED).by(principal));
                    return new InitResponse(session.id(), session.objectKey(), session.partSize(), session.expiresAt());
                });
    }

    private CompletableFuture<UploadSession> startS3Upload(InitRequest request, PublishTarget target,
                                                           String objectKey) {
        UploadSettings settings = services.settings();
        return services.s3().createMultipartUpload(b -> b.bucket(settings.bucket()).key(objectKey)
                        .contentType(request.contentType()))
                .exceptionally(error -> {
                    services.metrics().s3Error();
                    throw UploadErrors.s3Failed("cannot start the multipart upload", error);
                })
                .thenApply(created -> {
                    Instant now = services.clock().instant();
                    SessionDigests.State digests = SessionDigests.start(request.checksumAlg()).state();
                    return new UploadSession(UUID.randomUUID().toString(), settings.bucket(), objectKey,
                            created.uploadId(), request.topic(), target.partition(), target.topicId().toString(),
                            request.recordKey(), request.contentType(), request.sizeBytes(), settings.partSize(),
                            request.checksumAlg().wireName(), request.checksum(),
                            now.truncatedTo(ChronoUnit.SECONDS).toString(),
                            wholeSecondsAfter(now.plus(settings.sessionTtl())).toString(), List.of(), 0,
                            digests.sha256(), digests.checksum(), false, null);
                });
    }

    /** RFC 3339 with seconds, as the original writes it, rounded up so a session never lives less than its TTL. */
    private static Instant wholeSecondsAfter(Instant t) {
        Instant whole = t.truncatedTo(ChronoUnit.SECONDS);
        return whole.equals(t) ? whole : whole.plusSeconds(1);
    }
}
