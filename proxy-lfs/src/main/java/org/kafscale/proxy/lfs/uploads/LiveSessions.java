package org.kafscale.proxy.lfs.uploads;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.Async;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Looks a session up for a part, complete or cancel: 404 when unknown, 410 (and ended) when expired. */
final class LiveSessions {

    private static final Logger LOGGER = LoggerFactory.getLogger(LiveSessions.class);

    private final UploadSessionStore store;
    private final UploadEnder ender;
    private final Clock clock;

    LiveSessions(UploadServices services, UploadEnder ender) {
        this.store = services.store();
        this.clock = services.clock();
        this.ender = ender;
    }

    CompletableFuture<StoredSession> find(String id) {
        return store.find(id).thenCompose(found -> {
            if (found.isEmpty()) {
                return CompletableFuture.failedFuture(UploadErrors.notFound(id));
            }
            StoredSession stored = found.get();
            if (stored.session().expiredAt(clock.instant())) {
                return ender.endExpired(stored).handle((ok, error) -> {
                    if (error != null) {
                        LOGGER.warn("cannot end expired upload {}: {}", id, Async.unwrap(error).toString());
                    }
                    throw UploadErrors.expired(id);
                });
            }
            return CompletableFuture.completedFuture(stored);
        });
    }
}
