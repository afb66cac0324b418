package org.kafscale.proxy.routing.fetch;

import java.util.concurrent.atomic.AtomicLong;
import org.kafscale.proxy.core.hooks.RoutingObserver;

/**
 * The bytes of Fetch answers read ahead and held, summed over every connection of the process and
 * capped. Each held answer reserves its frame's size when it arrives and gives it back when it is
 * adopted, discarded or its connection closes; an answer that does not fit is not held.
 */
public final class ReadAheadBudget {
    private final long capBytes;
    private final RoutingObserver observer;
    private final AtomicLong held = new AtomicLong();

    public ReadAheadBudget(long capBytes, RoutingObserver observer) {
        this.capBytes = capBytes;
        this.observer = observer;
    }

    /** Reserves {@code bytes}; false (nothing reserved) when the sum would exceed the cap. */
    boolean reserve(long bytes) {
        while (true) {
            long now = held.get();
            if (now + bytes > capBytes) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                observer.readAheadHeld(bytes);
                return true;
            }
        }
    }

    /** Gives back what {@link #reserve} took. */
    void release(long bytes) {
        held.addAndGet(-bytes);
        observer.readAheadHeld(-bytes);
    }

    /** Tells the observer what became of one read-ahead. */
    void outcome(RoutingObserver.ReadAheadOutcome outcome) {
        observer.readAhead(outcome);
    }

    /** Bytes held now, over every connection. */
    public long heldBytes() {
        return held.get();
    }
}
