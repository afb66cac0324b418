package org.kafscale.proxy.routing.share;

import io.netty.util.concurrent.Future;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The share sessions of one client connection, by group and member. A client normally has one
 * member per connection; the bound keeps a client that invents members from growing the map
 * (the least recently used session goes; its broker sessions stay until the connection closes,
 * when the brokers drop them). Everything here lives and dies with the client connection, on its
 * event loop.
 */
final class ShareSessions {
    static final int MAX_SESSIONS = 8;

    record Key(String groupId, String memberId) {
    }

    /** A session, and the last request using it: the next waits for it, so epochs stay in order. */
    static final class Entry {
        final ClientShareSession session = new ClientShareSession();
        Future<?> last;
    }

    private final Map<Key, Entry> sessions = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    /** The session, made when the client opens one (epoch 0); null when it has none. */
    Entry get(Key key, boolean opens) {
        return opens ? sessions.computeIfAbsent(key, k -> new Entry()) : sessions.get(key);
    }

    /** The client closed it, and every broker session with it. */
    void remove(Key key, Entry entry) {
        sessions.remove(key, entry);
    }
}
