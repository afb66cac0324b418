package org.kafscale.proxy.core.server;

/** Why reading from a client connection is paused; one reason per condition the read gate checks. */
public enum ReadPause {
    /** The connection has its most requests in flight (or frames wait for a slot). */
    IN_FLIGHT_CAP("in_flight_cap"),
    /** The client has not taken the answers written to it (the channel's high-water mark). */
    CLIENT_NOT_WRITABLE("client_not_writable"),
    /** The listener's budget for unread answers (written or waiting for an earlier one) is spent. */
    UNREAD_ANSWER_BUDGET("unread_answer_budget"),
    /** The listener's budget for half-read frames is spent and this connection holds its share. */
    PARTIAL_FRAME_BUDGET("partial_frame_budget"),
    /** One of the connection's broker channels cannot take more requests. */
    BROKER_NOT_WRITABLE("broker_not_writable"),
    /** The connection drains: it answers what it read and closes. */
    DRAINING("draining"),
    /** The client is over a quota: it is not read until its throttle time has passed. */
    THROTTLED("throttled");

    private final String label;

    ReadPause(String label) {
        this.label = label;
    }

    /** The metric label. */
    public String label() {
        return label;
    }

    int bit() {
        return 1 << ordinal();
    }
}
