package org.kafscale.proxy.lfs.uploads;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Ends sessions that will not complete (expired, cancelled, refused), leaving nothing in S3.
 *
 * <p>Aborting a multipart upload twice is harmless (the second gets NoSuchUpload, which is
 * ignored), and so is deleting a session twice, so two replicas ending the same session cannot
 * break anything. An expired session is still claimed first (compare-and-set), so that only one
 * replica reports a possible orphan for a session that died while completing.
 */
final class UploadEnder {

    static final String REASON_EXPIRED_WHILE_COMPLETING = "upload_session_expired_while_completing";

    private static final Logger LOGGER = LoggerFactory.getLogger(UploadEnder.class);

    private final UploadSessionStore store;
    private final S3AsyncClient s3;
    private final ObjectJanitor janitor;

    UploadEnder(UploadServices services) {
        this.store = services.store();
        this.s3 = services.s3();
        this.janitor = services.janitor();
    }

    /** Aborts the S3 upload and deletes the session (DELETE, checksum mismatch). */
    CompletableFuture<Void> cancel(StoredSession stored) {
        return abort(stored.session()).thenCompose(v -> store.delete(stored));
    }

    /**
     * Ends an expired session once, whichever replicas race to it. A session that expired while
     * completing may have a completed object whose record was never produced (its replica died
     * in between): the object is kept, because a record may point to it, and counted as an orphan.
     */
    CompletableFuture<Void> endExpired(StoredSession stored) {
        UploadSession session = stored.session();
        return store.replace(stored, session.withEndingClaim(UUID.randomUUID().toString())).thenCompose(claimed -> {
            if (!claimed) {
                LOGGER.debug("expired upload {} is being ended by another replica", session.id());
                return CompletableFuture.<Void>completedFuture(null);
            }
            LOGGER.info("lfs upload {} expired at {}; ending it (topic={} key={})", session.id(), session.expiresAt(),
                    session.topic(), session.objectKey());
            if (session.completing()) {
                janitor.keepOrphan(session.topic(), session.objectKey(), "", REASON_EXPIRED_WHILE_COMPLETING);
                return store.delete(stored);
            }
            return cancel(stored);
        });
    }

    CompletableFuture<Void> abort(UploadSession session) {
        return s3.abortMultipartUpload(b -> b.bucket(session.bucket()).key(session.objectKey())
                        .uploadId(session.s3UploadId()))
                .handle((ok, error) -> {
                    if (error != null) {
                        // Already aborted (by another replica) or completed: nothing left to free.
                        LOGGER.debug("abort of S3 upload {} for {}: {}", session.s3UploadId(), session.id(),
                                Async.unwrap(error).toString());
                    }
                    return null;
                });
    }
}
