package org.kafscale.proxy.core.server;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.OptionalLong;

/**
 * The process's file descriptor limit, and the client connections that fit below it.
 *
 * <p>Every client connection costs at least two descriptors: its own socket and one broker
 * channel (more when it talks to several brokers). Descriptors are shared with the health and
 * LFS listeners, S3 and etcd; when accept() fails for want of one, all of them stop. So the
 * connection limit is lowered until clients at two descriptors each leave the headroom free.
 */
final class FileDescriptors {
    /** Descriptors per client connection counted against the limit: its socket and one broker channel. */
    static final int PER_CONNECTION = 2;

    private FileDescriptors() {
    }

    /** The process's limit ({@code ulimit -n}), when the JVM can tell (not on Windows). */
    static OptionalLong limit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            return OptionalLong.of(unix.getMaxFileDescriptorCount());
        }
        return OptionalLong.empty();
    }

    /** The connection limit to apply: the configured one, or less when the descriptors left after the headroom are fewer. */
    static int connectionLimit(int configured, int headroom, OptionalLong fdLimit) {
        if (fdLimit.isEmpty()) {
            return configured;
        }
        long fits = (fdLimit.getAsLong() - headroom) / PER_CONNECTION;
        return (int) Math.max(1, Math.min(configured, fits));
    }
}
