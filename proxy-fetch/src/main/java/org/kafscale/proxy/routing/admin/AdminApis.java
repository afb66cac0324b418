package org.kafscale.proxy.routing.admin;

import io.netty.util.concurrent.Future;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * The admin APIs whose resources or answers are a broker's own (RouteKind ADMIN): broker config
 * resources go to the broker they name, per-broker listings to every broker (or the one the
 * connection addresses), and the quorum's endpoints come back at the proxy's address.
 */
public final class AdminApis {
    private final RoutingServices services;
    private final ConfigResourceRoute configs;
    private final EveryBrokerFanOut everyBroker;
    private final QuorumEndpoints quorum;

    /** @param connect connection attempts per broker a part must reach */
    public AdminApis(RoutingServices services, AdvertisedListener advertised, ConnectAttempts connect) {
        this.services = services;
        this.configs = new ConfigResourceRoute(services, connect);
        this.everyBroker = new EveryBrokerFanOut(services, connect);
        this.quorum = new QuorumEndpoints(advertised);
    }

    /**
     * Routes the request when it is one of these APIs.
     *
     * @param toAnyBroker forwards the request to a live broker (the connection's round robin)
     */
    public Optional<Future<Reply>> handle(ConnectionContext context, RequestFrame request, ApiMessage body,
                                          Supplier<Future<Reply>> toAnyBroker) {
        if (body instanceof ListGroupsRequestData) {
            return Optional.of(everyBroker.handle(context, request, EveryBrokerApi.LIST_GROUPS));
        }
        if (body instanceof ListTransactionsRequestData) {
            return Optional.of(everyBroker.handle(context, request, EveryBrokerApi.LIST_TRANSACTIONS));
        }
        if (body instanceof DescribeConfigsRequestData data) {
            BrokerAddressMask mask = new BrokerAddressMask(services.topology().snapshot().brokers().values());
            return Optional.of(configs.route(context, request, data, ConfigApis.DESCRIBE_CONFIGS, mask::mask));
        }
        if (body instanceof AlterConfigsRequestData data) {
            return Optional.of(configs.route(context, request, data, ConfigApis.ALTER_CONFIGS, UnaryOperator.identity()));
        }
        if (body instanceof IncrementalAlterConfigsRequestData data) {
            return Optional.of(configs.route(context, request, data, ConfigApis.INCREMENTAL_ALTER_CONFIGS,
                    UnaryOperator.identity()));
        }
        if (body instanceof DescribeQuorumRequestData) {
            return Optional.of(quorum.rewrite(context, request, toAnyBroker.get()));
        }
        return Optional.empty();
    }
}
