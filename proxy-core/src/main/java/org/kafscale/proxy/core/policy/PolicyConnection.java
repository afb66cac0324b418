package org.kafscale.proxy.core.policy;

import io.netty.channel.EventLoop;
import java.net.SocketAddress;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.logging.LogFields;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * What a {@link PolicyFactory} sees of the client connection it makes a policy for. The principal
 * and client id are read live: a connection opens anonymous and authenticates (SASL) later, so a
 * policy made at the open reads them when a request comes, not when it is made. The broker
 * channels are not here: a policy decides, the routes forward.
 */
public final class PolicyConnection implements LogFields {
    private final ConnectionContext connection;

    PolicyConnection(ConnectionContext connection) {
        this.connection = connection;
    }

    /** The connection's short id, as its log lines carry it. */
    public String id() {
        return connection.id();
    }

    /** Who the client is by address: a PROXY protocol header's source, else the socket's peer. */
    public SocketAddress clientAddress() {
        return connection.clientAddress();
    }

    /** The socket's remote address, which a PROXY protocol header cannot change (see ConnectionContext#peerAddress). */
    public SocketAddress peerAddress() {
        return connection.peerAddress();
    }

    /** The broker whose own port the connection came in on; empty on the bootstrap listener. */
    public OptionalInt addressedBroker() {
        return connection.addressedBroker();
    }

    /** Who the client proved to be so far ({@link KafkaPrincipal#ANONYMOUS} until it authenticates). */
    public KafkaPrincipal principal() {
        return connection.principal();
    }

    /**
     * The name of the virtual cluster the tenant policy placed the connection in; empty before its
     * first request after ApiVersions, or without virtual clusters. Policies after the tenant
     * policy read it rather than place the connection again.
     */
    public Optional<String> virtualCluster() {
        return connection.virtualCluster();
    }

    /** Places the connection in the virtual cluster {@code name}: the tenant policy's call, once per connection. */
    public void placeIn(String name) {
        connection.placeIn(name);
    }

    /** The client id of the client's latest request header (null until one names it). */
    public String clientId() {
        return connection.clientId();
    }

    /**
     * Stops reading from the client for {@code millis}, as a broker mutes a throttled client's
     * channel; what it sent already is still answered. A longer throttle in force is kept. Call on
     * the connection's event loop.
     */
    public void throttle(long millis) {
        connection.throttle(millis);
    }

    /**
     * The event-loop time spent on the connection (its requests handled, its broker answers
     * handled) since the last call; a request-time quota charges it. The first call starts the
     * measuring: a connection no such quota asks about does not pay for it. Call on the event loop.
     */
    public long takeLoopTime() {
        return connection.takeLoopTime();
    }

    /** The connection's event loop: the policy's hooks and its close run there. */
    public EventLoop loop() {
        return connection.loop();
    }

    /** The connection's log fields (id, client address, client id, principal). */
    @Override
    public LoggingEventBuilder addTo(LoggingEventBuilder event) {
        return connection.addTo(event);
    }
}
