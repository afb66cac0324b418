package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The three clocks of a client connection: a new connection must be admitted (a whole first
 * request read, or on a SASL listener its authentication done) within the unauthenticated timeout, a
 * request frame must arrive whole within the frame read timeout of its first bytes, and a
 * connection with nothing in flight and nothing half-sent is closed after the idle timeout. The
 * first is what closes a socket that connects and never speaks, long before the idle timeout.
 *
 * <p>The connection reports its state after each read batch and each answer; one timer per
 * connection checks the clocks lazily (re-armed for the nearest deadline when it fires), so a
 * busy connection costs no timer per request. While the proxy itself stops reading the client
 * (backpressure), the frame clock restarts when reading resumes: the client is not to blame for
 * bytes the proxy did not take. Runs on the connection's event loop.
 */
final class ConnectionTimeouts {
    private static final long NONE = Long.MIN_VALUE;

    private final EventExecutor loop;
    private final long frameReadNanos;
    private final long idleNanos;
    private final long unauthenticatedNanos;
    private final Expiry expire;
    private final long openedNanos;
    private boolean admitted;
    private long frameStartedNanos = NONE;
    private long idleSinceNanos = NONE;
    private ScheduledFuture<?> check;
    private long checkDueNanos;
    private boolean stopped;

    /** Closes the connection, with which clock ran out and why. */
    @FunctionalInterface
    interface Expiry {
        void expired(ConnectionTimeout timeout, String reason);
    }

    /** Starts the unauthenticated clock now. */
    ConnectionTimeouts(EventExecutor loop, Duration frameRead, Duration idle, Duration unauthenticated,
                       Expiry expire) {
        this.loop = loop;
        this.frameReadNanos = frameRead.toNanos();
        this.idleNanos = idle.toNanos();
        this.unauthenticatedNanos = unauthenticated.toNanos();
        this.expire = expire;
        this.openedNanos = loop.ticker().nanoTime();
    }

    /** The connection sent a whole request (or, on a SASL listener, authenticated): the unauthenticated clock stops. */
    void admitted() {
        admitted = true;
    }

    /**
     * After a read batch or an answer.
     *
     * @param partialFrame part of a request frame is buffered
     * @param newFrame that part belongs to a frame that began in the batch just read (a frame
     *     completed before it)
     * @param idle nothing is in flight, queued or half-sent
     */
    void update(boolean partialFrame, boolean newFrame, boolean idle) {
        if (stopped) {
            return;
        }
        long now = loop.ticker().nanoTime();
        if (!partialFrame) {
            frameStartedNanos = NONE;
        } else if (newFrame || frameStartedNanos == NONE) {
            frameStartedNanos = now;
        }
        if (!idle) {
            idleSinceNanos = NONE;
        } else if (idleSinceNanos == NONE) {
            idleSinceNanos = now;
        }
        arm(now);
    }

    /** The proxy resumed reading the client: the frame under way gets its whole timeout again. */
    void readingResumed() {
        if (frameStartedNanos != NONE) {
            frameStartedNanos = loop.ticker().nanoTime();
        }
    }

    void stop() {
        stopped = true;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    /** Schedules the check for the nearest deadline, unless one is already due by then (a later one re-arms). */
    private void arm(long now) {
        long due = nextDeadline();
        if (due == NONE || (check != null && checkDueNanos <= due)) {
            return;
        }
        if (check != null) {
            check.cancel(false);
        }
        checkDueNanos = due;
        check = loop.schedule(this::check, Math.max(0, due - now), TimeUnit.NANOSECONDS);
    }

    private long nextDeadline() {
        long due = earliest(frameStartedNanos == NONE ? NONE : frameStartedNanos + frameReadNanos,
                idleSinceNanos == NONE ? NONE : idleSinceNanos + idleNanos);
        return admitted ? due : earliest(due, openedNanos + unauthenticatedNanos);
    }

    private static long earliest(long a, long b) {
        if (a == NONE) {
            return b;
        }
        return b == NONE ? a : Math.min(a, b);
    }

    private void check() {
        check = null;
        if (stopped) {
            return;
        }
        long now = loop.ticker().nanoTime();
        if (!admitted && now - openedNanos >= unauthenticatedNanos) {
            stop();
            expire.expired(ConnectionTimeout.UNAUTHENTICATED, "no whole request (nor, on a SASL listener, an "
                    + "authentication) " + TimeUnit.NANOSECONDS.toMillis(unauthenticatedNanos) + " ms after it connected");
        } else if (frameStartedNanos != NONE && now - frameStartedNanos >= frameReadNanos) {
            stop();
            expire.expired(ConnectionTimeout.FRAME_READ, "a request frame was not complete "
                    + TimeUnit.NANOSECONDS.toMillis(frameReadNanos) + " ms after its first bytes");
        } else if (idleSinceNanos != NONE && now - idleSinceNanos >= idleNanos) {
            stop();
            expire.expired(ConnectionTimeout.IDLE, "idle for " + TimeUnit.NANOSECONDS.toMillis(idleNanos) + " ms");
        } else {
            arm(now);
        }
    }
}
