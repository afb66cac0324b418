package org.kafscale.proxy.discovery.kafka;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.kafscale.proxy.core.topology.CoordinatorKind;

/**
 * Which broker coordinates each group and transactional id, for the ids seen most recently.
 *
 * <p>The keys come from clients, who may send any number of distinct ids, so the cache holds at
 * most {@link #MAX_ENTRIES}, dropping the least recently used, and never holds an id longer than
 * {@link #MAX_KEY_CHARS} (real ids are short; a longer one is looked up each time): at most a few
 * MB however many ids clients send. An id that falls out costs one FindCoordinator on its next use.
 */
final class CoordinatorCache {
    /** Entries kept; far more groups and transactional ids than one proxy usually serves. */
    static final int MAX_ENTRIES = 10_000;
    /** Longest id kept. */
    static final int MAX_KEY_CHARS = 1024;

    private record Key(CoordinatorKind kind, String id) {
    }

    private final AtomicLong evictions = new AtomicLong();
    /** Access order: a hit makes an entry the most recent. Guarded by itself (short critical sections). */
    private final LinkedHashMap<Key, Integer> entries = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Integer> eldest) {
            if (size() <= MAX_ENTRIES) {
                return false;
            }
            evictions.incrementAndGet();
            return true;
        }
    };

    /** The cached coordinator of {@code id}, or null. */
    Integer get(CoordinatorKind kind, String id) {
        synchronized (entries) {
            return entries.get(new Key(kind, id));
        }
    }

    void put(CoordinatorKind kind, String id, int brokerId) {
        if (id.length() > MAX_KEY_CHARS) {
            return;
        }
        synchronized (entries) {
            entries.put(new Key(kind, id), brokerId);
        }
    }

    void remove(CoordinatorKind kind, String id) {
        synchronized (entries) {
            entries.remove(new Key(kind, id));
        }
    }

    int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    /** Entries dropped to stay within {@link #MAX_ENTRIES}, since start. */
    long evictions() {
        return evictions.get();
    }
}
