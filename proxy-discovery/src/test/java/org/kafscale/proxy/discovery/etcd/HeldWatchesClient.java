package org.kafscale.proxy.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A real jetcd client to a real etcd whose watches the test steers: their start can be held back
 * (the watch reaches etcd only at {@link #releaseWatches()}, the gap between a read and its watch
 * made as wide as the test needs), and an open one can be broken as a failing connection breaks it
 * (its listener hears an error). It counts the watchers opened and not yet closed per prefix.
 */
final class HeldWatchesClient extends ForwardingClient {
    private final Watch watch = new SteeredWatch();
    private final List<SteeredWatcher> live = new ArrayList<>();
    private final List<SteeredWatcher> waiting = new ArrayList<>();
    private boolean held;

    HeldWatchesClient(Client etcd) {
        super(etcd);
    }

    @Override
    public Watch getWatchClient() {
        return watch;
    }

    /** From now on, watches asked for reach etcd only at {@link #releaseWatches()}. */
    synchronized void holdWatches() {
        held = true;
    }

    /** Sends the held watches to etcd, and later ones at once. */
    void releaseWatches() {
        List<SteeredWatcher> start;
        synchronized (this) {
            held = false;
            start = List.copyOf(waiting);
            waiting.clear();
        }
        start.forEach(SteeredWatcher::start);
    }

    /** Watches asked for and held back so far. */
    synchronized int waitingWatches() {
        return waiting.size();
    }

    /** Watchers on {@code prefix} asked for and not closed (held ones included). */
    synchronized int liveWatchers(String prefix) {
        return (int) live.stream().filter(w -> w.prefix.equals(prefix)).count();
    }

    /** Breaks the one live watcher on {@code prefix}: its listener hears an error, as when etcd's stream fails. */
    void breakWatch(String prefix) {
        SteeredWatcher only;
        synchronized (this) {
            List<SteeredWatcher> on = live.stream().filter(w -> w.prefix.equals(prefix)).toList();
            if (on.size() != 1) {
                throw new AssertionError(on.size() + " live watchers on " + prefix);
            }
            only = on.get(0);
        }
        only.listener.onError(new IllegalStateException("watch stream broken by the test"));
    }

    private synchronized void closed(SteeredWatcher watcher) {
        live.remove(watcher);
        waiting.remove(watcher);
    }

    private final class SteeredWatch implements Watch {
        @Override
        public Watcher watch(ByteSequence key, WatchOption option, Listener listener) {
            SteeredWatcher watcher = new SteeredWatcher(key, option, listener);
            synchronized (HeldWatchesClient.this) {
                live.add(watcher);
                if (held) {
                    waiting.add(watcher);
                    return watcher;
                }
            }
            watcher.start();
            return watcher;
        }

        @Override
        public void requestProgress() {
            etcd.getWatchClient().requestProgress();
        }
    }

    private final class SteeredWatcher implements Watch.Watcher {
        private final ByteSequence key;
        private final String prefix;
        private final WatchOption option;
        private final Watch.Listener listener;
        private Watch.Watcher real;
        private boolean closed;

        SteeredWatcher(ByteSequence key, WatchOption option, Watch.Listener listener) {
            this.key = key;
            this.prefix = key.toString(StandardCharsets.UTF_8);
            this.option = option;
            this.listener = listener;
        }

        synchronized void start() {
            if (!closed) {
                real = etcd.getWatchClient().watch(key, option, listener);
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                closed = true;
                if (real != null) {
                    real.close();
                }
            }
            closed(this);
        }

        @Override
        public synchronized boolean isClosed() {
            return closed;
        }

        @Override
        public synchronized void requestProgress() {
            if (real != null) {
                real.requestProgress();
            }
        }
    }
}
