package org.kafscale.proxy.discovery;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.kafscale.proxy.core.topology.CoordinatorKind;

/**
 * Which broker coordinates each group and transactional id, for the ids seen most recently, and
 * for an id whose coordinator just refused the role, which broker that was.
 *
 * <p>The keys come from clients, who may send any number of distinct ids, so the cache holds at
 * most {@link #MAX_ENTRIES}, dropping the least recently used, and never holds an id longer than
 * {@link #MAX_KEY_CHARS} (real ids are short; a longer one is looked up each time): at most a few
 * MB however many ids clients send. An id that falls out costs one FindCoordinator on its next use.
 * Every operation is O(1), so event loops may call it.
 */
final class CoordinatorCache {
    /** Entries kept; far more groups and transactional ids than one proxy usually serves. */
    static final int MAX_ENTRIES = 10_000;
    /** Longest id kept. */
    static final int MAX_KEY_CHARS = 1024;
    /** No broker: the id's coordinator is unknown, or no broker refused it. */
    static final int NONE = -1;

    private record Key(CoordinatorKind kind, String id) {
    }

    /** The coordinator as last found ({@link #NONE} after a refusal), and the broker that refused it. */
    private record Entry(int coordinator, int refusedBy) {
    }

    private final AtomicLong evictions = new AtomicLong();
    /** Access order: a hit makes an entry the most recent. Guarded by itself (short critical sections). */
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
            if (size() <= MAX_ENTRIES) {
                return false;
            }
            evictions.incrementAndGet();
            return true;
        }
    };

    /** The cached coordinator of {@code id}, or null when it must be looked up. */
    Integer get(CoordinatorKind kind, String id) {
        Entry entry = entry(kind, id);
        return entry == null || entry.coordinator() == NONE ? null : entry.coordinator();
    }

    /** The broker that last refused to coordinate {@code id}, or {@link #NONE}. */
    int refusedBy(CoordinatorKind kind, String id) {
        Entry entry = entry(kind, id);
        return entry == null ? NONE : entry.refusedBy();
    }

    void put(CoordinatorKind kind, String id, int brokerId) {
        store(kind, id, new Entry(brokerId, NONE));
    }

    /**
     * Forgets the coordinator of {@code id} and remembers who refused it: {@code brokerId}, or the
     * cached coordinator when that is {@link #NONE} (it is the broker the request was sent to).
     */
    void refused(CoordinatorKind kind, String id, int brokerId) {
        if (id.length() > MAX_KEY_CHARS) {
            return;
        }
        synchronized (entries) {
            Key key = new Key(kind, id);
            Entry previous = entries.get(key);
            int refusedBy = brokerId != NONE ? brokerId : previous == null ? NONE : previous.coordinator();
            if (refusedBy == NONE) {
                entries.remove(key);
            } else {
                entries.put(key, new Entry(NONE, refusedBy));
            }
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

    private Entry entry(CoordinatorKind kind, String id) {
        synchronized (entries) {
            return entries.get(new Key(kind, id));
        }
    }

    private void store(CoordinatorKind kind, String id, Entry entry) {
        if (id.length() > MAX_KEY_CHARS) {
            return;
        }
        synchronized (entries) {
            entries.put(new Key(kind, id), entry);
        }
    }
}
