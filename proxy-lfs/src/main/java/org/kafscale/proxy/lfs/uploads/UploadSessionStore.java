package org.kafscale.proxy.lfs.uploads;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where upload sessions live so that every replica sees the same ones.
 *
 * <p>Every call is asynchronous and never blocks its caller (routes call it from an event loop).
 * A store that cannot be reached fails the future with {@link SessionStoreException}.
 */
public interface UploadSessionStore {

    /** Stores a new session; false if one with the same id already exists. */
    CompletableFuture<Boolean> create(UploadSession session);

    CompletableFuture<Optional<StoredSession>> find(String id);

    /**
     * Replaces {@code current} with {@code next} only if the stored session is still the version
     * that was read; false if another replica changed or removed it meanwhile.
     */
    CompletableFuture<Boolean> replace(StoredSession current, UploadSession next);

    /** Removes the session; removing one that is already gone is not an error. */
    CompletableFuture<Void> delete(StoredSession stored);

    /** Every stored session, for the expiry sweep. */
    CompletableFuture<List<StoredSession>> all();

    /** For logs: where the sessions are kept. */
    String describe();
}
