package org.kafscale.proxy.core.server;

/** Told when client connections open and close and when each request is answered (metrics, drain). */
public interface ConnectionListener {
    ConnectionListener NONE = new ConnectionListener() {
    };

    default void opened() {
    }

    default void closed() {
    }

    /**
     * A connection was refused before it was served: at accept, or at its PROXY protocol header.
     *
     * @param limit why: the limit it was past ({@code total} or {@code per_ip}), {@code sni} for a
     *     TLS server name that addresses nothing, or {@code proxy_header} (the header was missing
     *     where required, malformed, or late)
     */
    default void refused(String limit) {
    }

    /** A connection was closed by one of its timeouts. */
    default void timedOut(ConnectionTimeout timeout) {
    }

    /**
     * A request was read and is being handled; {@link #requestCompleted} and then
     * {@link #requestSettled} follow for each.
     */
    default void requestStarted(short apiKey) {
    }

    /**
     * One request was answered (by its handler, or with REQUEST_TIMED_OUT at its deadline).
     * Called on the connection's event loop: must be cheap.
     *
     * @param nanos from reading the request to its reply being ready
     * @param requestBytes bytes read, size prefix included
     * @param answerBytes bytes of the answer, size prefix included (0 when Kafka defines none)
     * @param closedConnection the reply closes the connection (not ready, or no answer exists)
     */
    default void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes, int answerBytes,
                                  boolean closedConnection) {
    }

    /**
     * The request's handler is done with it and its frame is released: at its answer, or later
     * when a deadline answered first. A close waits for these, so no router is cut off holding a
     * buffer. Called on the connection's event loop.
     */
    default void requestSettled(short apiKey) {
    }

    /**
     * Reading from one client was paused for {@code reason} for {@code nanos}, told when that
     * reason ends (or the connection closes). A pause with two reasons at once counts for each.
     * Called on the connection's event loop.
     */
    default void readsPaused(ReadPause reason, long nanos) {
    }
}
