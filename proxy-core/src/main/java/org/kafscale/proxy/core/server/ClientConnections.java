package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open client connections of one Kafka listener, the requests they have in flight, and their
 * drain on shutdown.
 */
final class ClientConnections {
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConnections.class);
    private static final Duration FORCED_CLOSE_WAIT = Duration.ofSeconds(2);

    private final ChannelGroup channels = new DefaultChannelGroup("kafka-clients", GlobalEventExecutor.INSTANCE);
    private volatile boolean draining;
    /** Requests read and not yet settled (their handler done, their frame released), on every connection. */
    private final AtomicInteger requestsInFlight = new AtomicInteger();
    private final Object settled = new Object();

    /**
     * Tracks a new connection. Once a drain has begun the connection is closed instead, before it
     * reads anything. (Added first, checked second: a drain that starts in between still sees it.)
     */
    boolean admit(Channel channel) {
        channels.add(channel);
        if (draining) {
            channel.close();
            return false;
        }
        return true;
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
    ClientConnectionHandler.ConnectionListener counting(ClientConnectionHandler.ConnectionListener listener) {
        return new ClientConnectionHandler.ConnectionListener() {
            @Override
            public void opened() {
                listener.opened();
            }

            @Override
            public void closed() {
                listener.closed();
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
        };
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
