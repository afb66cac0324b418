package org.kafscale.proxy.routing.admin;

import io.netty.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.routing.apis.Call;
import org.kafscale.proxy.routing.engine.RoutingServices;

/**
 * The admin APIs whose resources or answers are a broker's own : broker config
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

    public Future<Reply> listGroups(Call<ListGroupsRequestData> call) {
        return everyBroker.handle(call.context(), call.request(), EveryBrokerApi.LIST_GROUPS);
    }

    public Future<Reply> listTransactions(Call<ListTransactionsRequestData> call) {
        return everyBroker.handle(call.context(), call.request(), EveryBrokerApi.LIST_TRANSACTIONS);
    }

    /** Config values naming a broker's address are hidden: the client knows brokers only at the proxy. */
    public Future<Reply> describeConfigs(Call<DescribeConfigsRequestData> call) {
        BrokerAddressMask mask = new BrokerAddressMask(services.topology().snapshot().brokers().values());
        return configs.route(call.context(), call.request(), call.body(), ConfigApis.DESCRIBE_CONFIGS, mask::mask);
    }

    public Future<Reply> alterConfigs(Call<AlterConfigsRequestData> call) {
        return configs.route(call.context(), call.request(), call.body(), ConfigApis.ALTER_CONFIGS,
                UnaryOperator.identity());
    }

    public Future<Reply> incrementalAlterConfigs(Call<IncrementalAlterConfigsRequestData> call) {
        return configs.route(call.context(), call.request(), call.body(), ConfigApis.INCREMENTAL_ALTER_CONFIGS,
                UnaryOperator.identity());
    }

    /** @param forwarded the request forwarded to a live broker */
    public Future<Reply> describeQuorum(Call<DescribeQuorumRequestData> call, Future<Reply> forwarded) {
        return quorum.rewrite(call.context(), call.request(), forwarded);
    }
}
