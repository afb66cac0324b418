package org.kafscale.proxy.routing.admin;

import io.netty.util.concurrent.Future;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * A request about the broker the connection addresses (advertise mode ports): the client's bytes
 * to that broker, whose answer is about itself (its log dirs, the producers of its replicas) and
 * names no address. While the broker is not in the topology (it has just left: its port is
 * closing) the connection closes, as it would on a broker that stopped.
 */
public final class AddressedBrokerRoute {
    private final RoutingServices services;
    private final ConnectAttempts connect;

    public AddressedBrokerRoute(RoutingServices services, ConnectAttempts connect) {
        this.services = services;
        this.connect = connect;
    }

    /** Forwards the request whole to the addressed broker; empty when the connection addresses none. */
    public Optional<Future<Reply>> route(ConnectionContext context, RequestFrame request) {
        OptionalInt addressed = context.addressedBroker();
        if (addressed.isEmpty()) {
            return Optional.empty();
        }
        Optional<BrokerEndpoint> broker = services.topology().snapshot().broker(addressed.getAsInt());
        if (broker.isEmpty()) {
            return Optional.of(Replies.now(context.loop(), new Reply.Close(request.describe() + " addresses broker "
                    + addressed.getAsInt() + ", which the topology no longer lists")));
        }
        return Optional.of(services.forwarder().forwardToFirstReachable(context, request, List.of(broker.get()),
                connect, request.frame().retainedDuplicate(), 0, Errors.REQUEST_TIMED_OUT));
    }
}
