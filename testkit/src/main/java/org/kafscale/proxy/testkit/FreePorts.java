package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out free TCP ports on the loopback interface.
 *
 * <p>The kernel picks the port (bind to port 0), so two test JVMs do not fight over a fixed range.
 * A port is never handed out twice by this JVM: a process that was given a port but has not bound
 * it yet (etcd starting up) must not see it given to somebody else.
 */
public final class FreePorts {

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    /** A loopback port that was free a moment ago and that this JVM has not handed out before. */
    public static int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = probe();
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port found in 100 attempts");
    }

    /**
     * The first of {@code count} consecutive loopback ports that were all free a moment ago and
     * none handed out before (a proxy listening on one port per broker needs a contiguous range).
     */
    public static int block(int count) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 60_000 - count);
            if (allBindable(base, count) && reserve(base, count)) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free loopback ports found in 100 attempts");
    }

    private static boolean allBindable(int base, int count) {
        for (int port = base; port < base + count; port++) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private static synchronized boolean reserve(int base, int count) {
        for (int port = base; port < base + count; port++) {
            if (HANDED_OUT.contains(port)) {
                return false;
            }
        }
        for (int port = base; port < base + count; port++) {
            HANDED_OUT.add(port);
        }
        return true;
    }

    private static int probe() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a loopback port", e);
        }
    }
}
