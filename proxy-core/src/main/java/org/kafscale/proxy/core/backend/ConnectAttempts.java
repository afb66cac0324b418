package org.kafscale.proxy.core.backend;

import java.time.Duration;

/**
 * How hard the proxy tries to reach some broker for a request any broker can answer
 * (KAFSCALE_PROXY_BACKEND_RETRIES and KAFSCALE_PROXY_BACKEND_BACKOFF_MS, as in the Go proxy):
 * each attempt connects to the next broker in turn. Only connecting is retried, never a request
 * that was sent.
 *
 * @param attempts connect attempts in all, at least 1
 * @param backoff pause between attempts
 */
public record ConnectAttempts(int attempts, Duration backoff) {
    /** One attempt: what every other route does, with its own retry policy. */
    public static final ConnectAttempts ONCE = new ConnectAttempts(1, Duration.ZERO);

    public ConnectAttempts {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
        }
    }
}
