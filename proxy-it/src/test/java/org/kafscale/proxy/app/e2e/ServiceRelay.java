package org.kafscale.proxy.app.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a Kubernetes Service does for the proxy's pods, on a free loopback port: each new
 * connection goes to one of the current endpoints (round robin), and open connections stay where
 * they are when the endpoints change. The test plays the endpoints controller: it adds a proxy once
 * its readiness probe passes and removes one that is terminating. Plain blocking sockets, a thread
 * per direction of each connection.
 */
final class ServiceRelay implements AutoCloseable {
    private final ServerSocket server;
    private volatile List<Integer> endpoints = List.of();
    private final AtomicInteger next = new AtomicInteger();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private ServiceRelay(ServerSocket server) {
        this.server = server;
        Thread accept = new Thread(this::accept, "service-relay-accept");
        accept.setDaemon(true);
        accept.start();
    }

    static ServiceRelay start() throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return new ServiceRelay(server);
    }

    int port() {
        return server.getLocalPort();
    }

    /** The ports new connections are spread over from now on. */
    void endpoints(List<Integer> ports) {
        endpoints = List.copyOf(ports);
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            List<Integer> now = endpoints;
            try {
                if (now.isEmpty()) {
                    // No ready endpoint: the Service refuses, as kube-proxy's reject rule does.
                    throw new IOException("no endpoint");
                }
                Socket backend = new Socket(InetAddress.getLoopbackAddress(),
                        now.get(Math.floorMod(next.getAndIncrement(), now.size())));
                sockets.add(client);
                sockets.add(backend);
                pipe(client, backend);
                pipe(backend, client);
            } catch (IOException e) {
                // A backend that went away between the endpoint update and the connect: the client's
                // connection closes and it reconnects, as through a real Service.
                closeQuietly(client);
            }
        }
    }

    /** Copies {@code from} to {@code to} until either side closes, then closes both. */
    private void pipe(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // One side closed.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "service-relay-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    private void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(this::closeQuietly);
    }
}
