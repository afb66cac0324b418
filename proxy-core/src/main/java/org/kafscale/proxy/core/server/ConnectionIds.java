package org.kafscale.proxy.core.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Short ids for client connections, given when a connection is accepted: a per-process counter in
 * base 36 ({@code c1}, {@code c2}, ... {@code czz} after 1295). A counter rather than random hex:
 * it never repeats within a process (random ids of a few characters collide after some tens of
 * thousands of connections), it stays short for as long as the process lives, and its order is
 * the order connections came in. Across processes the log line's host or pod tells them apart.
 */
final class ConnectionIds {
    private static final AtomicLong NEXT = new AtomicLong();

    private ConnectionIds() {
    }

    static String next() {
        return "c" + Long.toString(NEXT.incrementAndGet(), Character.MAX_RADIX);
    }
}
