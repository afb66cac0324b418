package org.kafscale.proxy.app.e2e;

import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.kafscale.proxy.core.proxyprotocol.ProxyHeaders;

/**
 * A load balancer in front of the proxy, as far as the proxy can tell: a loopback port that opens
 * a connection to the proxy for each one it accepts, starts it with a PROXY protocol v2 header
 * naming {@code source} as the client (with the accepted connection's port), then relays bytes
 * both ways unchanged. Every client behind it looks to the proxy's socket like 127.0.0.1.
 *
 * <p>Plain blocking sockets: one thread accepts, one thread per direction per connection.
 */
final class ProxyHeaderRelay implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final String source;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private ProxyHeaderRelay(ServerSocket server, int targetPort, String source) {
        this.server = server;
        this.targetPort = targetPort;
        this.source = source;
    }

    /** A relay on a free loopback port to 127.0.0.1:{@code targetPort}, whose clients all come from {@code source}. */
    static ProxyHeaderRelay start(int targetPort, String source) throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ProxyHeaderRelay relay = new ProxyHeaderRelay(server, targetPort, source);
        Thread acceptor = new Thread(relay::acceptAll, "proxy-header-relay-" + source);
        acceptor.setDaemon(true);
        acceptor.start();
        return relay;
    }

    int port() {
        return server.getLocalPort();
    }

    private void acceptAll() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                upstream.getOutputStream().write(header(client.getPort()));
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // Closed, or the proxy is not there: the client sees its connection end.
            }
        }
    }

    private byte[] header(int sourcePort) {
        return ProxyHeaders.encode(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.PROXY,
                HAProxyProxiedProtocol.TCP4, source, "127.0.0.1", sourcePort, targetPort));
    }

    /** Copies {@code from} to {@code to} until either ends, then closes both. */
    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[64 * 1024];
                int read;
                while ((read = in.read(buffer)) != -1) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // One side closed or reset: both close below.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-header-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(ProxyHeaderRelay::closeQuietly);
    }
}
