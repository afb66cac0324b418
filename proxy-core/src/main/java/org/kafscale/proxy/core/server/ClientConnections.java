package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open client connections of one Kafka listener, the requests they have in flight, and their
 * drain on shutdown.
 *
 * <p>Connections past the listener's limits (in total, and from one client address) are closed
 * as soon as they are accepted, before they read anything, so a flood of connections costs the
 * proxy no more than the descriptors it briefly holds. Behind a load balancer that sends PROXY
 * protocol headers, the address a connection counts for is the header's, known once it is read.
 */
final class ClientConnections {
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConnections.class);
    private static final Duration FORCED_CLOSE_WAIT = Duration.ofSeconds(2);

    private final ChannelGroup channels = new DefaultChannelGroup("kafka-clients", GlobalEventExecutor.INSTANCE);
    private final int maxConnections;
    private final int maxConnectionsPerIp;
    private final ConnectionListener listener;
    private final RateLimitedLog refusals = RateLimitedLog.every10Seconds(LOGGER);
    /** Admitted connections: counted here, not from {@link #channels}, which also holds refused ones briefly. */
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> openPerAddress = new ConcurrentHashMap<>();
    private volatile boolean draining;
    /** Requests read and not yet settled (their handler done, their frame released), on every connection. */
    private final AtomicInteger requestsInFlight = new AtomicInteger();
    private final Object settled = new Object();

    /**
     * @param maxConnections client connections open at once
     * @param maxConnectionsPerIp client connections open at once from one address
     * @param listener told of each refused connection
     */
    ClientConnections(int maxConnections, int maxConnectionsPerIp, ConnectionListener listener) {
        this.maxConnections = maxConnections;
        this.maxConnectionsPerIp = maxConnectionsPerIp;
        this.listener = listener;
    }

    /**
     * Tracks a new connection and counts it against the listener's total (which guards the
     * process's file descriptors, so it is counted at accept whatever the client turns out to be).
     * Once a drain has begun, or past the total, the connection is closed instead. (Added first,
     * checked second: a drain that starts in between still sees it.)
     */
    boolean accept(Channel channel) {
        channels.add(channel);
        if (draining) {
            channel.close();
            return false;
        }
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            return refuse(channel, channel.remoteAddress(), new Refusal("total",
                    "the listener's limit of " + maxConnections + " connections is reached"));
        }
        channel.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    /**
     * Counts an accepted connection against the limit of its client's address: at accept on a
     * listener without PROXY protocol, once the header is read where the header names the client.
     * A drain begun meanwhile closes it, as it would at accept.
     */
    boolean admitFrom(Channel channel, SocketAddress client) {
        if (draining) {
            channel.close();
            return false;
        }
        InetAddress address = addressOf(client);
        if (address == null) {
            return true;
        }
        if (openPerAddress.merge(address, 1, Integer::sum) > maxConnectionsPerIp) {
            release(address);
            return refuse(channel, client, new Refusal("per_ip",
                    "the limit of " + maxConnectionsPerIp + " connections from one address is reached"));
        }
        channel.closeFuture().addListener(f -> release(address));
        return true;
    }

    /** Closes a connection past a limit, with a rate-limited line and the refusal counted; false. */
    private boolean refuse(Channel channel, SocketAddress client, Refusal refused) {
        refusals.warn("Refusing connection from client {}: {} (further refusals are counted in "
                + "kafscale_proxy_client_connections_refused_total)", client, refused.reason());
        listener.refused(refused.limit());
        channel.close();
        return false;
    }

    private void release(InetAddress address) {
        openPerAddress.computeIfPresent(address, (a, count) -> count == 1 ? null : count - 1);
    }

    private static InetAddress addressOf(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** @param limit which limit refused it ({@code total}, {@code per_ip}), the metric's label */
    private record Refusal(String limit, String reason) {
    }

    int requestsInFlight() {
        return requestsInFlight.get();
    }

    /**
     * Closes every connection at once, then waits (bounded) until every request they had in flight
     * has settled: a closed connection cancels its broker requests, and the routers finish them on
     * the event loops, which must still run for that (a retry timer would not fire on a stopped
     * loop, and the request's buffer would never be released).
     */
    void closeAll() {
        draining = true;
        channels.close().awaitUninterruptibly(FORCED_CLOSE_WAIT.toMillis());
        long deadline = System.nanoTime() + FORCED_CLOSE_WAIT.toNanos();
        synchronized (settled) {
            long left;
            while (requestsInFlight.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    settled.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (requestsInFlight.get() > 0) {
            LOGGER.warn("{} requests still unsettled {} ms after their connections closed", requestsInFlight.get(),
                    FORCED_CLOSE_WAIT.toMillis());
        }
    }

    /** Wraps a listener so this registry also counts the requests in flight. */
    ConnectionListener counting(ConnectionListener listener) {
        return new ConnectionListener() {
            @Override
            public void opened() {
                listener.opened();
            }

            @Override
            public void closed() {
                listener.closed();
            }

            @Override
            public void timedOut(ConnectionTimeout timeout) {
                listener.timedOut(timeout);
            }

            @Override
            public void refused(String limit) {
                listener.refused(limit);
            }

            @Override
            public void requestStarted(short apiKey) {
                requestsInFlight.incrementAndGet();
                listener.requestStarted(apiKey);
            }

            @Override
            public void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes,
                                         int answerBytes, boolean closedConnection) {
                listener.requestCompleted(apiKey, apiVersion, nanos, requestBytes, answerBytes, closedConnection);
            }

            /** Counted here, not at the answer: a request answered at its deadline may still hold its frame. */
            @Override
            public void requestSettled(short apiKey) {
                // Only the closing thread waits, and only once draining is set: no monitor on the hot path.
                if (requestsInFlight.decrementAndGet() == 0 && draining) {
                    synchronized (settled) {
                        settled.notifyAll();
                    }
                }
                listener.requestSettled(apiKey);
            }

            @Override
            public void readsPaused(ReadPause reason, long nanos) {
                listener.readsPaused(reason, nanos);
            }
        };
    }

    /**
     * Asks each connection for which {@code affected} holds to answer what it has read and close,
     * and returns at once: the listener keeps accepting, and the other connections are untouched.
     */
    void drainWhere(Predicate<ConnectionContext> affected) {
        DrainIf event = new DrainIf(affected);
        channels.forEach(channel -> channel.pipeline().fireUserEventTriggered(event));
    }

    /**
     * Asks every connection to answer what it has read and close, waits up to {@code timeout} for
     * them, then closes the rest. Blocks: never call it on an event loop.
     *
     * @return whether every connection closed on its own within the timeout
     */
    boolean drain(Duration timeout) throws InterruptedException {
        draining = true;
        int count = channels.size();
        channels.forEach(channel -> channel.pipeline().fireUserEventTriggered(ClientConnectionHandler.DRAIN));
        boolean drained = channels.newCloseFuture().await(timeout.toMillis());
        if (drained) {
            LOGGER.info("Drained {} client connections", count);
        } else {
            LOGGER.warn("{} of {} client connections still had requests in flight after the drain timeout of {} ms; "
                    + "closing them", channels.size(), count, timeout.toMillis());
            channels.close().await(FORCED_CLOSE_WAIT.toMillis());
        }
        return drained;
    }
}
