package org.kafscale.proxy.lfs.tracker;

/**
 * Where the ops events of spec §4.13 go. Emitting never blocks and never fails the request that
 * emits: a full queue or a broken topic drops the event.
 */
public interface LfsTracker extends AutoCloseable {

    /** A tracker that drops everything (tracker disabled). */
    LfsTracker NONE = event -> { };

    void emit(TrackerEvent event);

    /** Each event to {@code first}, then to {@code second}; closing closes both. */
    static LfsTracker both(LfsTracker first, LfsTracker second) {
        return new LfsTracker() {
            @Override
            public void emit(TrackerEvent event) {
                first.emit(event);
                second.emit(event);
            }

            @Override
            public void close() {
                first.close();
                second.close();
            }
        };
    }

    @Override
    default void close() {
    }
}
