package org.kafscale.proxy.core.server;

import java.time.Duration;

/**
 * What one Kafka listener lets its clients hold: connections, bytes and time.
 *
 * @param maxConnections client connections open at once (lowered further by the fd headroom)
 * @param maxConnectionsPerIp client connections open at once from one address
 * @param fdHeadroom file descriptors kept free below the process limit for everything else
 *     (the health and LFS listeners, S3, etcd, log files); the connection limit is lowered so
 *     that the clients and their broker channels stay below the limit minus this
 * @param partialFrameBytes bytes of request frames not yet complete, summed over every
 *     connection; past it the connections that hold the most stop being read
 * @param frameReadTimeout how long a request frame may take to arrive once its first bytes have
 * @param idleTimeout how long a connection with nothing in flight and nothing half-sent stays open
 * @param unreadAnswerBytesPerConnection answers written and not yet taken by the client past
 *     which the proxy stops reading from it (the channel's write-buffer high-water mark)
 * @param unreadAnswerBytes the same summed over every connection; past it the connections that
 *     hold the most stop being read
 * @param unauthenticatedTimeout how long a new connection has to send its first whole request (on a
 *     SASL listener: to authenticate) before it is closed
 */
public record ListenerLimits(int maxConnections, int maxConnectionsPerIp, int fdHeadroom, long partialFrameBytes,
                             Duration frameReadTimeout, Duration idleTimeout, int unreadAnswerBytesPerConnection,
                             long unreadAnswerBytes, Duration unauthenticatedTimeout) {

    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_IP = 1_000;
    public static final int DEFAULT_FD_HEADROOM = 512;
    public static final long DEFAULT_PARTIAL_FRAME_BYTES = 256L * 1024 * 1024;
    public static final Duration DEFAULT_FRAME_READ_TIMEOUT = Duration.ofSeconds(30);
    /** A broker's connections.max.idle.ms; Kafka clients close theirs first, at 9 minutes. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);
    public static final int DEFAULT_UNREAD_ANSWER_BYTES_PER_CONNECTION = 4 * 1024 * 1024;
    public static final long DEFAULT_UNREAD_ANSWER_BYTES = 256L * 1024 * 1024;
    /** Kroxylicious' unauthenticated idle timeout: ample for a handshake and a login, short for a socket that never speaks. */
    public static final Duration DEFAULT_UNAUTHENTICATED_TIMEOUT = Duration.ofSeconds(10);

    public static final ListenerLimits DEFAULTS = new ListenerLimits(DEFAULT_MAX_CONNECTIONS,
            DEFAULT_MAX_CONNECTIONS_PER_IP, DEFAULT_FD_HEADROOM, DEFAULT_PARTIAL_FRAME_BYTES,
            DEFAULT_FRAME_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_UNREAD_ANSWER_BYTES_PER_CONNECTION,
            DEFAULT_UNREAD_ANSWER_BYTES, DEFAULT_UNAUTHENTICATED_TIMEOUT);

    /** Limits with the default unauthenticated timeout. */
    public ListenerLimits(int maxConnections, int maxConnectionsPerIp, int fdHeadroom, long partialFrameBytes,
                          Duration frameReadTimeout, Duration idleTimeout, int unreadAnswerBytesPerConnection,
                          long unreadAnswerBytes) {
        this(maxConnections, maxConnectionsPerIp, fdHeadroom, partialFrameBytes, frameReadTimeout, idleTimeout,
                unreadAnswerBytesPerConnection, unreadAnswerBytes, DEFAULT_UNAUTHENTICATED_TIMEOUT);
    }

    public ListenerLimits {
        if (maxConnections < 1 || maxConnectionsPerIp < 1 || fdHeadroom < 0 || partialFrameBytes < 1
                || unreadAnswerBytesPerConnection < 2 || unreadAnswerBytes < 1) {
            throw new IllegalArgumentException("listener limits out of range: connections " + maxConnections
                    + ", per IP " + maxConnectionsPerIp + ", fd headroom " + fdHeadroom + ", partial frame bytes "
                    + partialFrameBytes + ", unread answer bytes " + unreadAnswerBytesPerConnection + " / "
                    + unreadAnswerBytes);
        }
        if (frameReadTimeout.isNegative() || frameReadTimeout.isZero() || idleTimeout.isNegative()
                || idleTimeout.isZero() || unauthenticatedTimeout.isNegative() || unauthenticatedTimeout.isZero()) {
            throw new IllegalArgumentException("listener timeouts must be positive");
        }
    }
}
