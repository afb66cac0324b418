package org.kafscale.proxy.core.audit;

import java.util.List;
import java.util.function.Consumer;

/**
 * The audit trail: each event encoded once and offered to every sink's queue. {@link #record}
 * never blocks (call it from an event loop). With {@code failClosed}, {@link #refusesMutations}
 * says whether a mutating call must be refused now because some sink would not write its event.
 */
public final class AuditTrail implements AutoCloseable {
    /** No trail: records nothing, refuses nothing. */
    public static final AuditTrail NONE = new AuditTrail(List.of(), false);

    private final List<SinkQueue> sinks;
    private final boolean failClosed;

    public AuditTrail(List<SinkQueue> sinks, boolean failClosed) {
        this.sinks = List.copyOf(sinks);
        this.failClosed = failClosed;
    }

    public boolean isOn() {
        return !sinks.isEmpty();
    }

    public void record(AuditEvent event) {
        if (sinks.isEmpty()) {
            return;
        }
        String line = AuditJson.encode(event);
        for (SinkQueue sink : sinks) {
            sink.offer(line);
        }
    }

    /** As a {@link Consumer}, for the places that only hand events on. */
    public Consumer<AuditEvent> recorder() {
        return this::record;
    }

    /** With failClosed: true while a sink is down or its queue full. Always false without failClosed. */
    public boolean refusesMutations() {
        if (!failClosed) {
            return false;
        }
        for (SinkQueue sink : sinks) {
            if (!sink.accepting()) {
                return true;
            }
        }
        return false;
    }

    /** The sinks that are down now, with why and since when (for health). */
    public List<SinkQueue.Outage> outages() {
        return sinks.stream().flatMap(sink -> sink.outage().stream()).toList();
    }

    @Override
    public void close() {
        sinks.forEach(SinkQueue::close);
    }
}
