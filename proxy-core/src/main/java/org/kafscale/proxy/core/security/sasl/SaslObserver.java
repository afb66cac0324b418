package org.kafscale.proxy.core.security.sasl;

/**
 * Told the outcome of each SASL authentication (metrics). The labels are bounded: the mechanism
 * is an enabled one's Kafka name or {@link #UNSUPPORTED}, the outcome one of {@link Outcome}.
 */
public interface SaslObserver {
    SaslObserver NONE = (mechanism, outcome) -> {
    };

    /** The mechanism label of a handshake that named no enabled mechanism. */
    String UNSUPPORTED = "unsupported";

    /** How one authentication ended. */
    enum Outcome {
        /** The client proved who it is. */
        SUCCEEDED,
        /** An authenticated client proved it again on the same connection (KIP-368). */
        REAUTHENTICATED,
        /** Wrong password, unknown user, invalid token, unsupported mechanism. */
        FAILED,
        /** Refused before its credentials were looked at: too large, too many at once, out of order. */
        REFUSED;

        /** The label value. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Called on the connection's event loop: must be cheap. */
    void authentication(String mechanism, Outcome outcome);
}
