package org.kafscale.proxy.lfs.uploads;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.s3.S3Clients;
import org.reactivestreams.Publisher;

import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * {@code PUT /lfs/uploads/{id}/parts/{n}}: streams a part to S3 while continuing the session's
 * digests, then records it with a compare-and-set so that two replicas cannot both record a part.
 *
 * <p>Part n is taken only when parts 1..n-1 are recorded, because the running SHA-256 can only
 * continue in order. A recorded part sent again is drained and recognised by its size and SHA-256:
 * the same bytes get the recorded ETag (a retry), other bytes 409.
 */
final class PartReceiver {

    private final UploadServices services;
    private final UploadSessionStore store;
    private final LiveSessions sessions;

    PartReceiver(UploadServices services, LiveSessions sessions) {
        this.services = services;
        this.store = services.store();
        this.sessions = sessions;
    }

    /**
     * @param contentLength the body's length (the request's Content-Length): S3 needs it up front
     * @param body the part's bytes, read at most once and only when the part is acceptable
     * @param requestId for the ops event of a failed upload
     */
    CompletableFuture<PartReceipt> receive(String id, int partNumber, long contentLength, Publisher<ByteBuffer> body,
                                           String requestId, Optional<String> principal) {
        if (partNumber < 1) {
            return CompletableFuture.failedFuture(UploadErrors.invalidPart("invalid part number"));
        }
        return sessions.find(id).thenCompose(stored -> {
            UploadSession session = stored.session();
            if (session.part(partNumber).isPresent()) {
                return recognise(session.part(partNumber).get(), id, contentLength, body);
            }
            if (partNumber != session.nextPartNumber()) {
                throw UploadErrors.outOfOrder(session.nextPartNumber(), partNumber);
            }
            checkSize(session, contentLength);
            return upload(stored, partNumber, contentLength, body, requestId, principal);
        });
    }

    private CompletableFuture<PartReceipt> recognise(UploadedPart recorded, String id, long contentLength,
                                                     Publisher<ByteBuffer> body) {
        HashingBody hashing = new HashingBody(body, contentLength, null);
        return hashing.drain().thenApply(v -> {
            if (!recorded.sameBody(hashing.seen(), hashing.partSha256())) {
                throw UploadErrors.partConflict(recorded.partNumber());
            }
            return receipt(id, recorded);
        });
    }

    private static void checkSize(UploadSession session, long length) {
        if (length <= 0) {
            throw UploadErrors.invalidPart("empty part");
        }
        if (length > session.partSize()) {
            throw UploadErrors.invalidPart("part too large");
        }
        long after = session.uploadedBytes() + length;
        if (after > session.sizeBytes()) {
            throw UploadErrors.invalidPart("part exceeds declared size");
        }
        if (length < UploadSettings.MIN_PART_SIZE && after != session.sizeBytes()) {
            throw UploadErrors.invalidPart("part too small");
        }
    }

    private CompletableFuture<PartReceipt> upload(StoredSession stored, int partNumber, long length,
                                                  Publisher<ByteBuffer> body, String requestId,
                                                  Optional<String> principal) {
        long started = System.nanoTime();
        UploadSession session = stored.session();
        SessionDigests digests = SessionDigests.resume(session);
        HashingBody hashing = new HashingBody(body, length, digests);
        UploadPartRequest request = UploadPartRequest.builder()
                .bucket(session.bucket()).key(session.objectKey()).uploadId(session.s3UploadId())
                .partNumber(partNumber).contentLength(length)
                // The body streams from the client and cannot be sent twice.
                .overrideConfiguration(S3Clients.ONE_ATTEMPT).build();
        return services.s3().uploadPart(request, hashing)
                .exceptionally(error -> {
                    LfsException fromBody = LfsException.unwrap(error);
                    if (fromBody != null) {
                        // The client's body broke off: not an S3 failure.
                        throw fromBody;
                    }
                    LfsException answer = UploadErrors.s3Failed("upload of part " + partNumber + " failed", error);
                    services.metrics().s3Error();
                    services.tracker().emit(services.events().uploadFailed(requestId, session.topic(),
                            session.objectKey(), answer.code(), answer.getMessage(), "upload_part",
                            session.uploadedBytes(), (System.nanoTime() - started) / 1_000_000).by(principal));
                    throw answer;
                })
                .thenCompose(uploaded -> {
                    if (hashing.seen() != length) {
                        throw UploadErrors.invalidPart("part body has " + hashing.seen()
                                + " bytes, Content-Length said " + length);
                    }
                    UploadedPart part = new UploadedPart(partNumber, length, hashing.partSha256(), uploaded.eTag());
                    return store.replace(stored, session.withPart(part, digests.state()))
                            .thenCompose(recorded -> recorded
                                    ? CompletableFuture.completedFuture(receipt(session.id(), part))
                                    : afterLostRace(session.id(), part));
                });
    }

    /**
     * Another replica changed the session while this part was uploading: most likely the same
     * part arrived twice (a client retry) and the other copy was recorded first.
     */
    private CompletableFuture<PartReceipt> afterLostRace(String id, UploadedPart mine) {
        return store.find(id).thenApply(found -> {
            UploadSession now = found.orElseThrow(() -> UploadErrors.notFound(id)).session();
            UploadedPart recorded = now.part(mine.partNumber())
                    .orElseThrow(() -> UploadErrors.outOfOrder(now.nextPartNumber(), mine.partNumber()));
            if (!recorded.sameBody(mine.size(), mine.sha256())) {
                throw UploadErrors.partConflict(mine.partNumber());
            }
            return receipt(id, recorded);
        });
    }

    private static PartReceipt receipt(String id, UploadedPart part) {
        return new PartReceipt(id, part.partNumber(), part.etag());
    }
}
