package org.kafscale.proxy.core.quota;

/** What a quota counts. */
public enum QuotaKind {
    /** The bytes of Produce requests, counted as they are read. */
    PRODUCE("produce"),
    /** The bytes of Fetch answers, counted as they come back from the broker. */
    FETCH("fetch"),
    /**
     * The event-loop time the client's requests take: handling each request (policies, routing,
     * an answer made at once) and each answer from its broker channels (merging, policies, writing
     * it). TLS and framing are not counted: their cost follows bytes, which the byte rates hold.
     */
    REQUEST_TIME("request_time");

    private final String label;

    QuotaKind(String label) {
        this.label = label;
    }

    /** The metric label. */
    public String label() {
        return label;
    }
}
