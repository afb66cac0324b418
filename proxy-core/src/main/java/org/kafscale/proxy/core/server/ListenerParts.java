package org.kafscale.proxy.core.server;

import io.netty.channel.Channel;
import java.util.OptionalInt;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.server.sni.SniRouter;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;

/**
 * What one listener gives each of its connections: made once per listener, so its rate-limited
 * lines and byte budgets are shared by all of them.
 *
 * @param requestTimeoutMillis how long a broker has to answer; the base of each request's deadline
 * @param addressedBroker the broker id whose port the listener stands for; empty on the bootstrap
 *     listener (where in sni mode the connection's server name may still address one)
 */
record ListenerParts(RequestHandlers handlers, BackendConnector connector, int maxInFlight, long requestTimeoutMillis,
                     ConnectionListener listener, ConnectionLogs logs, ConnectionBudgets budgets,
                     OptionalInt addressedBroker) {

    /**
     * The context of a connection just opened on {@code client}, with no broker channel yet: its
     * client address is the PROXY protocol header's where it had one, its peer the socket's.
     */
    ConnectionContext newContext(Channel client) {
        return new ConnectionContext(client.eventLoop(), new BackendChannelPool(client.eventLoop(), connector),
                ClientAddress.of(client), client.remoteAddress(),
                addressedBroker.isPresent() ? addressedBroker : SniRouter.addressedBroker(client),
                SniRouter.addressedCluster(client));
    }
}
