package org.kafscale.proxy.core.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.kafscale.proxy.core.local.BrokerPorts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Advertise mode ports: one listener per known broker id in the port range, following the
 * topology. A broker that appears gets its port opened; one that leaves has its port closed and
 * the connections that came in on it drained (each answers what it has read, then closes), as
 * they would be by a broker that stops. Every listener shares the bootstrap listener's event
 * loops, connection limits and byte budgets; only the id its connections address differs.
 *
 * <p>Called from one housekeeping thread (binding blocks briefly), never from an event loop.
 */
final class BrokerPortListeners {
    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerPortListeners.class);

    private final ListenerSettings settings;
    private final ServerBootstrap template;
    /** The pipeline of a connection on broker {@code id}'s port, keeping it in the given group. */
    private final BiFunction<OptionalInt, ChannelGroup, KafkaProxyInitializer> initializers;
    private final Map<Integer, BrokerListener> open = new TreeMap<>();
    /** Ids outside the range, logged once each: their partitions are served through the bootstrap port. */
    private final Set<Integer> outOfRange = new HashSet<>();
    /** Ids whose port could not be bound, logged once until it binds. */
    private final Set<Integer> failedToBind = new HashSet<>();
    private boolean closed;

    /** @param template the bootstrap listener's server settings, without a child handler */
    BrokerPortListeners(ListenerSettings settings, ServerBootstrap template,
                        BiFunction<OptionalInt, ChannelGroup, KafkaProxyInitializer> initializers) {
        this.settings = settings;
        this.template = template;
        this.initializers = initializers;
    }

    private record BrokerListener(Channel server, ChannelGroup connections) {
    }

    /** Opens a port for each id in range not yet open, and closes those of ids no longer listed. */
    synchronized void follow(Collection<Integer> brokerIds) {
        BrokerPorts ports = settings.brokerPorts();
        if (closed || ports.count() == 0) {
            return;
        }
        Set<Integer> wanted = new HashSet<>();
        for (int id : brokerIds) {
            if (!ports.covers(id)) {
                if (outOfRange.add(id)) {
                    LOGGER.warn("Broker {} has no port of its own: ids {} to {} have ports {} (raise "
                                    + "KAFSCALE_PROXY_BROKER_PORT_COUNT); its partitions are served through the "
                                    + "bootstrap port {}, which splits requests by owner", id, 0, ports.count() - 1,
                            ports, settings.bindAddress().getPort());
                }
                continue;
            }
            wanted.add(id);
            if (!open.containsKey(id)) {
                bind(id);
            }
        }
        for (Integer id : Set.copyOf(open.keySet())) {
            if (!wanted.contains(id)) {
                BrokerListener gone = open.remove(id);
                LOGGER.info("Broker {} left the topology: closing its port {} and draining its {} connections", id,
                        ((InetSocketAddress) gone.server().localAddress()).getPort(), gone.connections().size());
                closeDraining(gone);
            }
        }
    }

    private void bind(int id) {
        InetSocketAddress address = settings.brokerBindAddress(id);
        ChannelGroup connections = new DefaultChannelGroup("kafka-broker-" + id, GlobalEventExecutor.INSTANCE);
        try {
            Channel server = template.clone().childHandler(initializers.apply(OptionalInt.of(id), connections))
                    .bind(address).sync().channel();
            open.put(id, new BrokerListener(server, connections));
            failedToBind.remove(id);
            LOGGER.info("Broker {} is served on its own port: listener bound to {}", id, server.localAddress());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // The port is taken or not allowed. Caught whatever its type (Netty's sync() may rethrow
            // a checked exception undeclared) so the periodic follow goes on; retried next pass.
            if (failedToBind.add(id)) {
                LOGGER.warn("Broker {}'s port could not be bound at {} ({}); retrying while it is listed", id, address,
                        e.toString());
            }
        }
    }

    /** Closes the port (done when this returns, so the next connection is refused) and drains its connections. */
    private static void closeDraining(BrokerListener listener) {
        listener.server().close().syncUninterruptibly();
        listener.connections().forEach(c -> c.pipeline().fireUserEventTriggered(ClientConnectionHandler.DRAIN));
    }

    /** Where each open broker port is bound, by broker id. */
    synchronized Map<Integer, InetSocketAddress> addresses() {
        Map<Integer, InetSocketAddress> addresses = new TreeMap<>();
        open.forEach((id, l) -> addresses.put(id, (InetSocketAddress) l.server().localAddress()));
        return addresses;
    }

    /** Stops accepting on every broker port; connections stay with the listener's drain or close. */
    synchronized void stopAccepting() {
        closed = true;
        open.values().forEach(l -> l.server().close().syncUninterruptibly());
        open.clear();
    }
}
