package org.kafscale.proxy.routing.fetch;

/**
 * Whether the proxy reads Fetch answers ahead for a client's next Fetch, and how many bytes of
 * such answers the whole process may hold.
 *
 * @param enabled read ahead at all ({@code KAFSCALE_PROXY_FETCH_READ_AHEAD})
 * @param maxHeldBytes bytes of answers read ahead and not yet taken, over every connection
 *                     ({@code KAFSCALE_PROXY_FETCH_READ_AHEAD_MAX_BYTES}); an answer that would
 *                     go over is dropped as it arrives, and the client's next Fetch is sent as usual
 */
public record ReadAheadSettings(boolean enabled, long maxHeldBytes) {
    /** The default process-wide bound: room for a few hundred consumers' answers of a few hundred KiB. */
    public static final long DEFAULT_MAX_HELD_BYTES = 256L * 1024 * 1024;
    public static final ReadAheadSettings DEFAULT = new ReadAheadSettings(true, DEFAULT_MAX_HELD_BYTES);
    public static final ReadAheadSettings OFF = new ReadAheadSettings(false, 0);

    public ReadAheadSettings {
        if (maxHeldBytes < 0) {
            throw new IllegalArgumentException("maxHeldBytes must not be negative: " + maxHeldBytes);
        }
    }
}
