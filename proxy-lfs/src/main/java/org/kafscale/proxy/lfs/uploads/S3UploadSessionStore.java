package org.kafscale.proxy.lfs.uploads;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.Async;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Sessions as small JSON objects {@code <namespace>/_lfs_uploads/<id>.json} in the LFS bucket, for
 * a proxy without etcd.
 *
 * <p>Writes are conditional: a new session with {@code If-None-Match: *}, an update with
 * {@code If-Match: <etag read>}; S3 answers 412 (or 409 when two conditional writes race, 404
 * when it deleted the session) if another replica wrote in between. The compare-and-set is exactly as atomic as the store's
 * conditional writes. AWS S3's are. S3Proxy (the tests' store) checks the ETag and then writes, so
 * two replicas writing at the same moment can both succeed: two completes of one upload sent at
 * the same instant to two replicas can then both produce a record (within one replica
 * {@link UploadCompleter} lets only one complete per upload run, whatever the store). A store that
 * ignores the headers gives last-writer-wins; one that refuses them (501) fails every session call
 * with 503. So only etcd, or this store on AWS S3, is safe with several replicas: {@link UploadRoutes}
 * warns at start-up when this store runs on a custom endpoint.
 * The prefix has no {@code /lfs/} segment, so {@code /lfs/download} never serves a session.
 */
public final class S3UploadSessionStore implements UploadSessionStore {

    private static final Logger LOGGER = LoggerFactory.getLogger(S3UploadSessionStore.class);
    private static final int PRECONDITION_FAILED = 412;
    private static final int CONFLICT = 409;
    private static final int NOT_FOUND = 404;

    private final S3AsyncClient s3;
    private final String bucket;
    private final String prefix;

    /** {@code s3} stays owned by the caller. */
    public S3UploadSessionStore(S3AsyncClient s3, String bucket, String namespace) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = namespace + "/_lfs_uploads/";
    }

    @Override
    public CompletableFuture<Boolean> create(UploadSession session) {
        return putConditionally(session, null);
    }

    @Override
    public CompletableFuture<Optional<StoredSession>> find(String id) {
        return read(objectKey(id));
    }

    @Override
    public CompletableFuture<Boolean> replace(StoredSession current, UploadSession next) {
        return putConditionally(next, current.version());
    }

    @Override
    public CompletableFuture<Void> delete(StoredSession stored) {
        String key = objectKey(stored.session().id());
        return s3.deleteObject(b -> b.bucket(bucket).key(key))
                .<Void>thenApply(response -> null)
                .exceptionally(error -> {
                    throw failure("delete", key, error);
                });
    }

    @Override
    public CompletableFuture<List<StoredSession>> all() {
        List<String> keys = new ArrayList<>();
        return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()
                .subscribe((S3Object object) -> keys.add(object.key()))
                .exceptionally(error -> {
                    throw failure("list", prefix, error);
                })
                .thenCompose(done -> {
                    List<CompletableFuture<Optional<StoredSession>>> reads = keys.stream().map(this::read).toList();
                    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                            // A session deleted between the listing and the read is simply gone.
                            .thenApply(all -> reads.stream().map(CompletableFuture::join)
                                    .flatMap(Optional::stream).toList());
                });
    }

    @Override
    public String describe() {
        return "s3://" + bucket + "/" + prefix;
    }

    /** Writes if the stored object still has {@code etag} (or, for null, does not exist yet). */
    private CompletableFuture<Boolean> putConditionally(UploadSession session, String etag) {
        String key = objectKey(session.id());
        return s3.putObject(b -> {
            b.bucket(bucket).key(key).contentType("application/json");
            if (etag == null) {
                b.ifNoneMatch("*");
            } else {
                b.ifMatch(etag);
            }
        }, AsyncRequestBody.fromBytes(UploadSessionCodec.encode(session)))
                .thenApply(response -> true)
                .exceptionally(error -> {
                    // An update of a session another replica deleted meanwhile finds no object (404):
                    // lost the race, like a changed ETag.
                    if (Async.unwrap(error) instanceof S3Exception e && (e.statusCode() == PRECONDITION_FAILED
                            || e.statusCode() == CONFLICT || (etag != null && e.statusCode() == NOT_FOUND))) {
                        LOGGER.debug("upload session {} changed under us ({})", session.id(), e.statusCode());
                        return false;
                    }
                    throw failure("write", key, error);
                });
    }

    private CompletableFuture<Optional<StoredSession>> read(String key) {
        return s3.getObject(b -> b.bucket(bucket).key(key), AsyncResponseTransformer.toBytes())
                .thenApply(object -> Optional.of(new StoredSession(UploadSessionCodec.decode(object.asByteArray()),
                        object.response().eTag())))
                .exceptionally(error -> {
                    if (Async.unwrap(error) instanceof NoSuchKeyException) {
                        return Optional.empty();
                    }
                    throw failure("read", key, error);
                });
    }

    private SessionStoreException failure(String verb, String key, Throwable error) {
        Throwable cause = Async.unwrap(error);
        return new SessionStoreException("cannot " + verb + " upload session s3://" + bucket + "/" + key + ": " + cause,
                cause);
    }

    private String objectKey(String id) {
        return prefix + id + ".json";
    }
}
