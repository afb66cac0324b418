package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The open client connections of one Kafka listener, and their drain on shutdown. */
final class ClientConnections {
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConnections.class);
    private static final Duration FORCED_CLOSE_WAIT = Duration.ofSeconds(2);

    private final ChannelGroup channels = new DefaultChannelGroup("kafka-clients", GlobalEventExecutor.INSTANCE);
    private volatile boolean draining;

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

    int open() {
        return channels.size();
    }

    /** Closes every connection at once (requests in flight are cancelled and their buffers released). */
    void closeAll() {
        draining = true;
        channels.close().awaitUninterruptibly(FORCED_CLOSE_WAIT.toMillis());
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
