package org.kafscale.proxy.testkit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP relay on a free loopback port in front of one Kafka broker that can break one Fetch
 * response on purpose.
 *
 * <p>It speaks Kafka's framing (a 4-byte big-endian size, then the frame). Requests go to the
 * broker unchanged; the relay notes the correlation id of every Fetch request (api key 1). Responses
 * go back unchanged, except that a {@linkplain #arm armed} {@link Fault} is applied once, to the
 * next response that answers a Fetch, on whichever connection that is. Connections accepted after
 * the fault (and all others) relay normally.
 *
 * <p>Plain blocking sockets: one thread accepts, and each connection has one thread per
 * direction, each the only writer of the socket it writes to.
 */
public final class FaultyRelay implements AutoCloseable {

    /** What happens to the Fetch response the armed fault hits. */
    public enum Fault {
        /** A complete frame of half the original size holding the first half of the body: it does not parse. */
        TRUNCATED_FRAME,
        /** The 4 size bytes and half the body, then both sockets of that connection close. */
        CLOSE_MID_RESPONSE,
        /** Nothing more reaches the client on that connection, which stays open: the broker "stops answering". */
        SILENCE
    }

    private static final Logger LOGGER = LoggerFactory.getLogger(FaultyRelay.class);
    private static final short FETCH_API_KEY = 1;
    private static final int MAX_FRAME_BYTES = 256 * 1024 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final String brokerHost;
    private final int brokerPort;
    private final ServerSocket server;
    private final AtomicReference<Fault> armed = new AtomicReference<>();
    private final AtomicBoolean faultApplied = new AtomicBoolean();
    private final AtomicInteger connectionsAccepted = new AtomicInteger();
    /** Until this {@link System#nanoTime()}, every response waits before it goes out (see {@link #stall}). */
    private volatile long stalledUntilNanos = System.nanoTime();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private FaultyRelay(String brokerHost, int brokerPort, ServerSocket server) {
        this.brokerHost = brokerHost;
        this.brokerPort = brokerPort;
        this.server = server;
    }

    /** Starts a relay on a free loopback port that forwards to {@code brokerAddress} ("host:port"). */
    public static FaultyRelay start(String brokerAddress) {
        int colon = brokerAddress.lastIndexOf(':');
        if (colon <= 0 || colon == brokerAddress.length() - 1) {
            throw new IllegalArgumentException("broker address must be host:port, got '" + brokerAddress + "'");
        }
        ServerSocket server;
        try {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a loopback port for the relay to " + brokerAddress, e);
        }
        FaultyRelay relay = new FaultyRelay(brokerAddress.substring(0, colon),
                Integer.parseInt(brokerAddress.substring(colon + 1)), server);
        daemon("faulty-relay-" + relay.port() + "-accept", relay::acceptLoop).start();
        LOGGER.info("FaultyRelay 127.0.0.1:{} relays to {}", relay.port(), brokerAddress);
        return relay;
    }

    /** The loopback port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Arms {@code fault} for the next Fetch response on any connection, replacing a fault armed
     * before and not yet applied, and resets {@link #faultApplied()} to false.
     */
    public void arm(Fault fault) {
        faultApplied.set(false);
        armed.set(fault);
        LOGGER.info("FaultyRelay 127.0.0.1:{} armed {}", port(), fault);
    }

    /**
     * Holds every response, on every connection, for {@code millis} from now; then they go out
     * unchanged and in order (a broker that stops answering for a while, then heals). Requests
     * still reach the broker meanwhile.
     */
    public void stall(long millis) {
        stalledUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        LOGGER.info("FaultyRelay 127.0.0.1:{} stalls responses for {} ms", port(), millis);
    }

    /**
     * True once the armed fault has been applied to a Fetch response (set just before the faulty
     * bytes go out, so a client that sees the fault's effect also sees this true).
     */
    public boolean faultApplied() {
        return faultApplied.get();
    }

    /** How many client connections this relay has accepted so far. */
    public int connectionsAccepted() {
        return connectionsAccepted.get();
    }

    /** Stops accepting and closes every connection, both sides. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        connections.forEach(Connection::close);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOGGER.warn("FaultyRelay 127.0.0.1:{} stopped accepting: {}", port(), e.toString());
                }
                return;
            }
            connectionsAccepted.incrementAndGet();
            Socket broker = new Socket();
            try {
                client.setTcpNoDelay(true);
                broker.setTcpNoDelay(true);
                broker.connect(new InetSocketAddress(brokerHost, brokerPort), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                LOGGER.warn("FaultyRelay 127.0.0.1:{} cannot reach {}:{}: {}", port(), brokerHost, brokerPort, e.toString());
                closeQuietly(client);
                closeQuietly(broker);
                continue;
            }
            Connection connection = new Connection(client, broker);
            connections.add(connection);
            if (closed) {
                connection.close();
                return;
            }
            connection.start();
        }
    }

    /** One client connection and its connection to the broker. */
    private final class Connection {
        private final Socket client;
        private final Socket broker;
        private final String name;
        /** Correlation ids of Fetch requests whose responses have not come back yet. */
        private final Set<Integer> fetchCorrelationIds = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean closing = new AtomicBoolean();

        Connection(Socket client, Socket broker) {
            this.client = client;
            this.broker = broker;
            this.name = "faulty-relay-" + port() + "-" + client.getPort();
        }

        void start() {
            daemon(name + "-requests", this::relayRequests).start();
            daemon(name + "-responses", this::relayResponses).start();
        }

        /** Client to broker: every frame unchanged, Fetch correlation ids noted before the broker can answer. */
        private void relayRequests() {
            try (DataInputStream in = input(client); DataOutputStream out = output(broker)) {
                while (true) {
                    byte[] frame = readFrame(in);
                    if (frame.length >= 8 && ByteBuffer.wrap(frame).getShort(0) == FETCH_API_KEY) {
                        fetchCorrelationIds.add(ByteBuffer.wrap(frame).getInt(4));
                    }
                    writeFrame(out, frame);
                }
            } catch (IOException e) {
                // EOF or a closed socket: the connection is over.
            } finally {
                close();
            }
        }

        /** Broker to client: every frame unchanged, unless an armed fault hits a Fetch response. */
        private void relayResponses() {
            boolean silent = false;
            try (DataInputStream in = input(broker); DataOutputStream out = output(client)) {
                while (true) {
                    byte[] frame = readFrame(in);
                    if (silent) {
                        continue;
                    }
                    awaitStallOver();
                    Fault fault = answersFetch(frame) ? armed.getAndSet(null) : null;
                    if (fault == null) {
                        writeFrame(out, frame);
                        continue;
                    }
                    // Marked first, so whoever sees the fault's effect also sees faultApplied().
                    applied(fault, frame);
                    switch (fault) {
                        case TRUNCATED_FRAME -> writeTruncatedFrame(out, frame);
                        case CLOSE_MID_RESPONSE -> {
                            writeHalfFrame(out, frame);
                            close();
                            return;
                        }
                        case SILENCE -> silent = true;
                    }
                }
            } catch (IOException e) {
                // EOF or a closed socket: the connection is over.
            } finally {
                close();
            }
        }

        private void awaitStallOver() throws IOException {
            long wait;
            while ((wait = stalledUntilNanos - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while stalled", e);
                }
            }
        }

        /** Whether the response frame answers a Fetch request of this connection (forgetting that request). */
        private boolean answersFetch(byte[] response) {
            return response.length >= 4 && fetchCorrelationIds.remove(ByteBuffer.wrap(response).getInt(0));
        }

        private void applied(Fault fault, byte[] response) {
            faultApplied.set(true);
            LOGGER.info("FaultyRelay 127.0.0.1:{} applies {} to the Fetch response with correlation id {} ({} bytes) on {}",
                    port(), fault, ByteBuffer.wrap(response).getInt(0), response.length, name);
        }

        void close() {
            if (closing.compareAndSet(false, true)) {
                closeQuietly(client);
                closeQuietly(broker);
                connections.remove(this);
            }
        }
    }

    private static byte[] readFrame(DataInputStream in) throws IOException {
        int size = in.readInt();
        if (size < 0 || size > MAX_FRAME_BYTES) {
            throw new IOException("frame size " + size + " out of range");
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        return frame;
    }

    private static void writeFrame(DataOutputStream out, byte[] frame) throws IOException {
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
    }

    /** A complete frame that claims half the size and holds the first half of the body. */
    private static void writeTruncatedFrame(DataOutputStream out, byte[] frame) throws IOException {
        out.writeInt(frame.length / 2);
        out.write(frame, 0, frame.length / 2);
        out.flush();
    }

    /** The full size, then only the first half of the body. */
    private static void writeHalfFrame(DataOutputStream out, byte[] frame) throws IOException {
        out.writeInt(frame.length);
        out.write(frame, 0, frame.length / 2);
        out.flush();
    }

    private static DataInputStream input(Socket socket) throws IOException {
        return new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    }

    private static DataOutputStream output(Socket socket) throws IOException {
        return new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing is best effort; the peer sees EOF either way.
        }
    }
}
