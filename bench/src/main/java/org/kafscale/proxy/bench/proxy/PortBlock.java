package org.kafscale.proxy.bench.proxy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.kafscale.proxy.testkit.FreePorts;

/**
 * A run of consecutive free ports, for a proxy that serves broker N on a port computed from a
 * base (Kroxylicious' "port identifies node", our {@code ports} mode). The kernel hands out single
 * ports only, so take one and check that the ones after it are free too. Only the first is
 * recorded by {@link FreePorts}; a later {@code FreePorts.next()} could in principle hand out one
 * of the others before its proxy binds it (the kernel picks at random from ~28,000 ephemeral
 * ports, and the bench asks for a dozen), which would fail that proxy's start, not a measurement.
 */
final class PortBlock {
    private static final int ATTEMPTS = 200;

    private PortBlock() {
    }

    /** The first of {@code size} consecutive ports that were all free a moment ago. */
    static int free(int size) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int first = FreePorts.next();
            if (first + size - 1 > 65535) {
                continue;
            }
            boolean free = true;
            for (int port = first + 1; port < first + size && free; port++) {
                free = bindable(port);
            }
            if (free) {
                return first;
            }
        }
        throw new IllegalStateException("no " + size + " consecutive free ports in " + ATTEMPTS + " attempts");
    }

    /** Probed on every interface: Kroxylicious binds {@code *:port} whatever host it is given. */
    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
