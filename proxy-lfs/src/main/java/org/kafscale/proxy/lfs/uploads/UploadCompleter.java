package org.kafscale.proxy.lfs.uploads;

import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.publish.EnvelopePublisher;
import org.kafscale.proxy.lfs.publish.PublishTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * {@code POST /lfs/uploads/{id}/complete}: checks the client's part list against the recorded
 * parts, checks the checksum, completes the S3 upload and produces the envelope.
 *
 * <p>The order differs from the original in two ways, both so that no object is left behind:
 * the checksum is compared before the S3 upload is completed (the running digests already cover
 * every byte), so a mismatch aborts the upload and no object ever exists; and the partition's
 * owner is connected to before completing, so a missing broker leaves the session intact for a
 * later retry. After S3 completed, {@link EnvelopePublisher#publish} deletes the object when the
 * record is not written, or counts it as an orphan when it may be.
 *
 * <p>One complete per upload id at a time in this proxy: a second one while the first runs is
 * answered 409 {@code upload_completing} without touching the store, so duplicates sent to one
 * replica never depend on the store's compare-and-set (which on S3-compatible stores other than
 * AWS S3 may not be atomic). Across replicas the store's claim decides; see
 * {@link S3UploadSessionStore} for which stores make that safe.
 */
final class UploadCompleter {

    private static final Logger LOGGER = LoggerFactory.getLogger(UploadCompleter.class);

    private final UploadServices services;
    private final UploadSessionStore store;
    private final EnvelopePublisher publisher;
    private final LiveSessions sessions;
    private final UploadEnder ender;
    private final Set<String> completing = ConcurrentHashMap.newKeySet();

    UploadCompleter(UploadServices services, LiveSessions sessions, UploadEnder ender) {
        this.services = services;
        this.store = services.store();
        this.publisher = services.publisher();
        this.sessions = sessions;
        this.ender = ender;
    }

    CompletableFuture<Envelope> complete(String id, CompleteRequest request, String requestId,
                                         Optional<String> principal) {
        if (!completing.add(id)) {
            return CompletableFuture.failedFuture(UploadErrors.completing(id));
        }
        CompletableFuture<Envelope> result;
        try {
            result = completeOnce(id, request, requestId, principal);
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        return result.whenComplete((envelope, error) -> completing.remove(id));
    }

    private CompletableFuture<Envelope> completeOnce(String id, CompleteRequest request, String requestId,
                                                     Optional<String> principal) {
        long started = System.nanoTime();
        return sessions.find(id).thenCompose(stored -> {
            UploadSession session = stored.session();
            checkCompletable(session, request);
            SessionDigests digests = SessionDigests.resume(session);
            String actual = digests.checksumHex().orElse("");
            if (session.expectedChecksum() != null && !session.expectedChecksum().equalsIgnoreCase(actual)) {
                LfsException mismatch = LfsException.badRequest("checksum_mismatch",
                        "checksum mismatch: expected " + session.expectedChecksum() + " got " + actual);
                return ender.cancel(stored).<Envelope>thenCompose(v -> CompletableFuture.failedFuture(mismatch));
            }
            Envelope envelope = Envelope.of(session.bucket(), session.objectKey(), session.sizeBytes(),
                    digests.sha256Hex(), actual, session.checksumAlg(), session.contentType(),
                    services.clock().instant().truncatedTo(ChronoUnit.SECONDS).toString(),
                    services.settings().proxyId());
            return completeAndPublish(stored, envelope, requestId, principal, started)
                    .thenApply(published -> reportCompleted(session, published, requestId, principal, started));
        });
    }

    /** In the spec's order: not already completing, every byte uploaded, every part listed in order. */
    private static void checkCompletable(UploadSession session, CompleteRequest request) {
        if (session.completing()) {
            throw UploadErrors.completing(session.id());
        }
        if (session.uploadedBytes() != session.sizeBytes()) {
            throw LfsException.badRequest("incomplete_upload", "uploaded " + session.uploadedBytes()
                    + " of " + session.sizeBytes() + " bytes");
        }
        checkListed(session, request.parts());
    }

    private Envelope reportCompleted(UploadSession session, Envelope published, String requestId,
                                     Optional<String> principal, long started) {
        services.metrics().request(session.topic(), true);
        services.metrics().addUploadBytes(session.sizeBytes());
        services.tracker().emit(services.events().uploadCompleted(requestId, session.topic(), session.partition(),
                session.bucket(), session.objectKey(), session.sizeBytes(), published.sha256(), published.checksum(),
                published.checksumAlg(), (System.nanoTime() - started) / 1_000_000, session.contentType())
                .by(principal));
        return published;
    }

    private CompletableFuture<Envelope> completeAndPublish(StoredSession stored, Envelope envelope, String requestId,
                                                          Optional<String> principal,
                                                          long started) {
        UploadSession session = stored.session();
        byte[] key = session.recordKey() == null ? null : Base64.getDecoder().decode(session.recordKey());
        return publisher.prepare(session.topic(), OptionalInt.of(session.partition()), key)
                .thenCompose(target -> store.replace(stored, session.withCompleting(true)).thenCompose(claimed -> {
                    if (!claimed) {
                        throw UploadErrors.completing(session.id());
                    }
                    return completeS3(session, requestId, principal, started)
                            .thenCompose(v -> publisher.publish(initTarget(session, target), envelope, key, requestId)
                                    // Past S3's completion the session is spent either way: the publisher
                                    // has produced the record, or deleted the object, or counted an orphan.
                                    .handle((ok, error) -> deleteQuietly(stored)
                                            .thenCompose(x -> error == null
                                                    ? CompletableFuture.completedFuture(envelope)
                                                    : CompletableFuture.<Envelope>failedFuture(error)))
                                    .thenCompose(f -> f));
                }));
    }

    /** The target as prepared now, but with the topic id seen at init, so a topic recreated meanwhile is noticed. */
    private static PublishTarget initTarget(UploadSession session, PublishTarget now) {
        Uuid atInit = session.topicId() == null ? Uuid.ZERO_UUID : Uuid.fromString(session.topicId());
        return new PublishTarget(now.topic(), now.partition(), atInit, now.broker());
    }

    private CompletableFuture<Void> completeS3(UploadSession session, String requestId, Optional<String> principal,
                                               long started) {
        List<CompletedPart> parts = session.parts().stream()
                .map(p -> CompletedPart.builder().partNumber(p.partNumber()).eTag(p.etag()).build()).toList();
        return services.s3().completeMultipartUpload(b -> b.bucket(session.bucket()).key(session.objectKey())
                        .uploadId(session.s3UploadId()).multipartUpload(m -> m.parts(parts)))
                .<Void>thenApply(done -> null)
                .exceptionallyCompose(error -> {
                    LfsException answer = UploadErrors.s3Failed("cannot complete the multipart upload", error);
                    services.metrics().s3Error();
                    services.tracker().emit(services.events().uploadFailed(requestId, session.topic(),
                            session.objectKey(), answer.code(), answer.getMessage(), "upload_complete",
                            session.uploadedBytes(), (System.nanoTime() - started) / 1_000_000).by(principal));
                    // Let the client try again: the parts are still in S3.
                    return reopen(session.id()).thenCompose(v -> CompletableFuture.failedFuture(answer));
                });
    }

    /** The client must list every recorded part, in order, with the ETags it was given. */
    private static void checkListed(UploadSession session, List<ListedPart> listed) {
        if (listed.size() != session.parts().size()) {
            throw UploadErrors.invalidPart("parts must list all " + session.parts().size()
                    + " uploaded parts, got " + listed.size());
        }
        for (int i = 0; i < listed.size(); i++) {
            UploadedPart recorded = session.parts().get(i);
            ListedPart claimed = listed.get(i);
            if (claimed.partNumber() != recorded.partNumber()) {
                throw UploadErrors.invalidPart("parts must be listed in ascending order: expected part "
                        + recorded.partNumber() + " at position " + (i + 1) + ", got " + claimed.partNumber());
            }
            if (!recorded.etag().equals(claimed.etag())) {
                throw UploadErrors.invalidPart("part etag mismatch");
            }
        }
    }

    private CompletableFuture<Void> reopen(String id) {
        return store.find(id).thenCompose(found -> found
                        .map(stored -> store.replace(stored, stored.session().withCompleting(false))
                                .<Void>thenApply(ok -> null))
                        .orElse(CompletableFuture.completedFuture(null)))
                .exceptionally(error -> {
                    LOGGER.warn("upload {} stays marked as completing: {}", id, Async.unwrap(error).toString());
                    return null;
                });
    }

    private CompletableFuture<Void> deleteQuietly(StoredSession stored) {
        return store.delete(stored).exceptionally(error -> {
            // It expires; the sweeper then reports it as a possible orphan and never deletes the object.
            LOGGER.warn("cannot delete finished upload session {}: {}", stored.session().id(),
                    Async.unwrap(error).toString());
            return null;
        });
    }
}
