package org.kafscale.proxy.bench.sizing;

/**
 * The per-unit figures docs/sizing.md is built from, and the formula that turns them into a
 * deployment size. Per-unit figures (CPU time per MiB moved, bytes per connection) are what a
 * shared, contended machine disturbs least, so the bench reports those rather than peak rates.
 */
public final class SizingFigures {

    private static final double MIB = 1024.0 * 1024.0;

    private SizingFigures() {
    }

    /**
     * Millicores per MiB/s: the proxy's CPU time over a window divided by the bytes it moved in that
     * window. One core busy for one second per MiB moved is 1000 millicores per MiB/s; the window's
     * length cancels out, which is why only CPU time and bytes are needed.
     */
    public static double millicoresPerMibPerSecond(double cpuSeconds, long bytesMoved) {
        if (cpuSeconds < 0 || bytesMoved <= 0) {
            throw new IllegalArgumentException("need cpuSeconds >= 0 and bytesMoved > 0, got "
                    + cpuSeconds + " and " + bytesMoved);
        }
        return 1000.0 * cpuSeconds / (bytesMoved / MIB);
    }

    /**
     * Bytes per connection: the growth of a memory pool (heap, direct or resident) from a baseline
     * with no client connections to the same pool with {@code connections} open.
     */
    public static double bytesPerConnection(long baselineBytes, long loadedBytes, int connections) {
        if (connections <= 0) {
            throw new IllegalArgumentException("connections must be > 0, got " + connections);
        }
        return (double) (loadedBytes - baselineBytes) / connections;
    }

    /**
     * Cores for a deployment: produce MiB/s in times the produce figure plus fetch MiB/s out times
     * the fetch figure, in millicores, converted to cores.
     */
    public static double cores(double produceMibPerSecond, double produceMillicoresPerMibPerSecond,
                               double fetchMibPerSecond, double fetchMillicoresPerMibPerSecond) {
        return (produceMibPerSecond * produceMillicoresPerMibPerSecond
                + fetchMibPerSecond * fetchMillicoresPerMibPerSecond) / 1000.0;
    }

    /**
     * Memory for a deployment in bytes: a fixed base plus idle and active connections at their
     * per-connection cost.
     */
    public static double memoryBytes(long baseBytes, int idleConnections, double bytesPerIdleConnection,
                                     int activeConnections, double bytesPerActiveConnection) {
        return baseBytes + idleConnections * bytesPerIdleConnection + activeConnections * bytesPerActiveConnection;
    }
}
