package org.kafscale.proxy.core.audit;

import java.io.IOException;
import java.util.List;

/**
 * Where audit lines go: a file, stdout, a Kafka topic. Called only from its own {@link SinkQueue}'s
 * thread, never from an event loop, so it may block; a write that throws marks the sink down
 * until a later write or {@link #probe} succeeds.
 */
public interface AuditSink extends AutoCloseable {
    /** The {@code sink} label of its metrics: {@code file}, {@code stdout} or {@code topic}. */
    String name();

    /** Writes {@code lines} (JSON, without line breaks) durably enough for this sink, or throws. */
    void write(List<String> lines) throws IOException;

    /** While the sink is down and nothing is queued: whether it could write again. */
    default void probe() throws IOException {
        write(List.of());
    }

    @Override
    default void close() throws IOException {
    }
}
