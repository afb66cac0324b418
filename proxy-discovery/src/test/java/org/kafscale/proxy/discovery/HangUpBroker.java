package org.kafscale.proxy.discovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * A broker address that accepts every connection and closes it at once, counting them: a broker
 * that does not answer, which shows whether (and how often) it was asked.
 */
final class HangUpBroker implements AutoCloseable {
    private final ServerSocket server;
    private final AtomicInteger accepted = new AtomicInteger();

    private HangUpBroker(ServerSocket server) {
        this.server = server;
    }

    static HangUpBroker start() {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            HangUpBroker broker = new HangUpBroker(server);
            Thread accept = new Thread(broker::acceptLoop, "hang-up-broker-" + server.getLocalPort());
            accept.setDaemon(true);
            accept.start();
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This address, presented as broker {@code id}. */
    BrokerEndpoint as(int id) {
        return new BrokerEndpoint(id, "127.0.0.1", server.getLocalPort(), null);
    }

    /** Connections accepted (and closed) so far. */
    int accepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                accepted.incrementAndGet();
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
