package org.kafscale.proxy.core.server;

/**
 * Where a client connection is in its life. It only moves forward:
 *
 * <pre>
 *   Open --DRAIN--> Draining --last answer flushed--> Closed
 *     \________________________ close, error, disconnect ___/
 * </pre>
 *
 * Open reads and answers. Draining reads nothing more and answers what it has read. Closed
 * answers nothing: replies that complete after the close are released unwritten.
 */
sealed interface ConnectionPhase {
    Open OPEN = new Open();
    Draining DRAINING = new Draining();
    Closed CLOSED = new Closed();

    /** Whether answers are still written (Open and Draining). */
    default boolean answers() {
        return true;
    }

    /** The phase after a DRAIN: an open connection drains; a draining or closed one stays as it is. */
    default ConnectionPhase drain() {
        return this;
    }

    final class Open implements ConnectionPhase {
        private Open() {
        }

        @Override
        public ConnectionPhase drain() {
            return DRAINING;
        }

        @Override
        public String toString() {
            return "Open";
        }
    }

    final class Draining implements ConnectionPhase {
        private Draining() {
        }

        @Override
        public String toString() {
            return "Draining";
        }
    }

    final class Closed implements ConnectionPhase {
        private Closed() {
        }

        @Override
        public boolean answers() {
            return false;
        }

        @Override
        public String toString() {
            return "Closed";
        }
    }
}
