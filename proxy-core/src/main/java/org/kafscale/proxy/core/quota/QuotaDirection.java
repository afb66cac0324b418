package org.kafscale.proxy.core.quota;

/** Which bytes a byte-rate quota counts. */
public enum QuotaDirection {
    /** The bytes of Produce requests, counted as they are read. */
    PRODUCE("produce"),
    /** The bytes of Fetch answers, counted as they are written to the client. */
    FETCH("fetch");

    private final String label;

    QuotaDirection(String label) {
        this.label = label;
    }

    /** The metric label. */
    public String label() {
        return label;
    }
}
