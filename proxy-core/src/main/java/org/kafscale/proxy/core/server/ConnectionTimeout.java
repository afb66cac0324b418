package org.kafscale.proxy.core.server;

/** Which clock of a client connection ran out ({@link ConnectionTimeouts}); the metric's label. */
public enum ConnectionTimeout {
    /** A request frame did not arrive whole in time. */
    FRAME_READ("frame_read"),
    /** Nothing in flight for the idle timeout. */
    IDLE("idle"),
    /** No whole first request (on a SASL listener: no authentication) in time. */
    UNAUTHENTICATED("unauthenticated");

    private final String label;

    ConnectionTimeout(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
