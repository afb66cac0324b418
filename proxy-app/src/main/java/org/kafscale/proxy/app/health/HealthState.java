package org.kafscale.proxy.app.health;

/** What {@code /health} says the proxy is, in the words an operator acts on (docs/operations.md, "Health states"). */
public enum HealthState {
    /** Not ready yet, and never has been since the process started. */
    STARTING("starting"),
    /** Serving, with nothing wrong that the proxy can see. */
    READY("ready"),
    /** Serving (ready), but something it depends on is failing: see the reasons. */
    DEGRADED("degraded"),
    /** Shutting down: finishing what it holds, taking no new clients. */
    DRAINING("draining"),
    /** Was ready, is not now: not serving, see the reason. */
    NOT_READY("not_ready");

    private final String label;

    HealthState(String label) {
        this.label = label;
    }

    /** The name in the JSON answer and the metric's label. */
    public String label() {
        return label;
    }

    /** Whether the proxy takes clients in this state ({@code /readyz} answers 200). */
    public boolean serving() {
        return this == READY || this == DEGRADED;
    }
}
