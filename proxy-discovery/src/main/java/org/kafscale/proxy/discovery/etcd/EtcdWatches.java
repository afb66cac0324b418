package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One etcd watch per key prefix, each started at the revision after the read it follows, so a
 * change made between that read and the watch's start is still delivered (etcd replays it).
 *
 * <p>A watch that breaks is closed and forgotten first; then, after a backoff (1 s growing to 8 s,
 * back to 1 s after a healthy read), etcd is read again and a new watch starts at that read's
 * revision + 1. A watch whose start revision etcd has compacted away cannot be replayed: it is
 * re-read and re-watched at once, without a backoff (etcd is up; only the revision is too old).
 * A read that fails there is retried the same way, so a prefix is never left without a watch
 * while the topology is open.
 */
final class EtcdWatches implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(EtcdWatches.class);

    /** How long to wait before watching again after a watch broke: {@code first}, doubling to {@code max}. */
    record Backoff(Duration first, Duration max) {
        static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8));
    }

    private final Watch client;
    private final Runnable changed;
    private final Supplier<CompletableFuture<Long>> reread;
    private final ScheduledExecutorService scheduler;
    private final Backoff backoff;
    /** Grown by broken watches (jetcd threads), reset by healthy reads: atomic, as both happen at once. */
    private final AtomicLong nextDelayMillis;
    private final RateLimitedLog failures = RateLimitedLog.every10Seconds(LOGGER);
    private final List<PrefixWatch> watches;
    private volatile boolean closed;

    /**
     * @param prefixes the key prefixes to watch
     * @param changed called when etcd changed under a prefix (on a jetcd thread; must not block)
     * @param reread starts a read of etcd that begins after the call, completing with its revision
     * @param scheduler runs the delayed re-watches
     */
    EtcdWatches(Watch client, List<String> prefixes, Runnable changed, Supplier<CompletableFuture<Long>> reread,
                ScheduledExecutorService scheduler, Backoff backoff) {
        this.client = client;
        this.changed = changed;
        this.reread = reread;
        this.scheduler = scheduler;
        this.backoff = backoff;
        this.nextDelayMillis = new AtomicLong(backoff.first().toMillis());
        this.watches = prefixes.stream().map(PrefixWatch::new).toList();
    }

    /**
     * Watches every prefix from the revision after {@code firstRead}'s (after a re-read if it
     * fails); completes once the watches are asked for (or their re-read is scheduled), whatever
     * the read's outcome.
     */
    CompletableFuture<Void> start(CompletableFuture<Long> firstRead) {
        return CompletableFuture.allOf(watches.stream().map(watch -> watch.openAfter(firstRead))
                .toArray(CompletableFuture[]::new));
    }

    /** A healthy read: the next broken watch waits the first backoff again. */
    void healthyRead() {
        nextDelayMillis.set(backoff.first().toMillis());
    }

    @Override
    public void close() {
        closed = true;
        watches.forEach(PrefixWatch::close);
    }

    /** The watch of one prefix: at most one open watcher at any time. */
    private final class PrefixWatch {
        private final String prefix;
        /** Null while waiting to watch again. */
        private Opened current;

        PrefixWatch(String prefix) {
            this.prefix = prefix;
        }

        CompletableFuture<Void> openAfter(CompletableFuture<Long> read) {
            return read.handle((revision, error) -> {
                if (error == null) {
                    open(revision + 1);
                } else {
                    watchLater(null, error, "the read before it failed");
                }
                return null;
            });
        }

        private synchronized void open(long fromRevision) {
            if (closed || current != null) {
                return;
            }
            Opened opened = new Opened(this);
            current = opened;
            opened.watcher = client.watch(EtcdReader.bytes(prefix),
                    WatchOption.builder().isPrefix(true).withRevision(fromRevision).build(), opened);
            if (current != opened) {
                // It broke before watch() returned: watchLater could not close it yet.
                opened.close();
            }
        }

        /**
         * {@code broken} (null after a failed read) is removed and closed before anything else,
         * so a replacement is never added beside it; a watcher already replaced says nothing.
         */
        void watchLater(Opened broken, Throwable error, String why) {
            synchronized (this) {
                if (closed || current != broken) {
                    return;
                }
                current = null;
            }
            if (broken != null) {
                broken.close();
            }
            boolean compacted = EtcdErrors.cause(error) instanceof CompactedException;
            long delay = compacted ? 0 : nextDelayMillis.getAndUpdate(d -> Math.min(d * 2, backoff.max().toMillis()));
            if (broken != null) {
                failures.warn("etcd watch on {} broke ({}); re-reading and watching again in {} ms", prefix, why, delay);
                LOGGER.debug("etcd watch on {} broke", prefix, error);
            }
            try {
                scheduler.schedule(() -> openAfter(reread.get()), delay, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // Closed meanwhile: nothing to watch any more.
            }
        }

        synchronized void close() {
            if (current != null) {
                current.close();
                current = null;
            }
        }
    }

    /** One opened watcher and its listener: news from it counts only while it is its prefix's current one. */
    private final class Opened implements Watch.Listener {
        private final PrefixWatch owner;
        private volatile Watch.Watcher watcher;

        Opened(PrefixWatch owner) {
            this.owner = owner;
        }

        @Override
        public void onNext(WatchResponse response) {
            if (!closed && !response.getEvents().isEmpty()) {
                changed.run();
            }
        }

        @Override
        public void onError(Throwable error) {
            owner.watchLater(this, error, EtcdErrors.cause(error) instanceof CompactedException
                    ? "its start revision was compacted" : EtcdErrors.cause(error).toString());
        }

        @Override
        public void onCompleted() {
            owner.watchLater(this, null, "ended by etcd");
        }

        void close() {
            Watch.Watcher opened = watcher;
            if (opened != null) {
                opened.close();
            }
        }
    }

}
