package org.kafscale.proxy.routing.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.ConfigResourceTypes;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.routing.RoutingHarness;

/**
 * Advertise mode ports: a connection on a broker's own port sends that broker the requests about
 * itself (its log dirs, its replicas' producers, its configs, what it coordinates).
 */
class AddressedBrokerRouteTest {
    private final RoutingHarness proxy = new RoutingHarness().withBrokerPorts();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final ScriptedBroker broker3 = proxy.broker(3);
    private final List<ScriptedBroker> all = List.of(broker1, broker2, broker3);

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void describeLogDirsOnABrokersPortIsThatBrokersDisks() throws IOException {
        // Given each broker with a log dir named after it
        for (ScriptedBroker broker : all) {
            broker.on(ApiKeys.DESCRIBE_LOG_DIRS, request -> answer(new DescribeLogDirsResponseData().setResults(List.of(
                    new DescribeLogDirsResult().setLogDir("/data/broker-" + broker.id())))));
        }

        // When kafka-log-dirs asks on broker 2's port
        DescribeLogDirsResponseData answer = proxy.connectToBrokerPort(2)
                .send(new DescribeLogDirsRequestData().setTopics(null), (short) 4);

        // Then broker 2 answered, and only broker 2 was asked
        assertEquals(List.of("/data/broker-2"), answer.results().stream().map(DescribeLogDirsResult::logDir).toList());
        assertEquals(0, broker1.requests(ApiKeys.DESCRIBE_LOG_DIRS) + broker3.requests(ApiKeys.DESCRIBE_LOG_DIRS));
    }

    @Test
    void describeProducersOnABrokersPortGoesToThatBrokerWhoeverLeads() throws IOException {
        // Given brokers that answer DescribeProducers (the partition's leader does not matter here)
        for (ScriptedBroker broker : all) {
            broker.on(ApiKeys.DESCRIBE_PRODUCERS, request -> answer(new DescribeProducersResponseData()
                    .setThrottleTimeMs(broker.id())));
        }

        // When the Admin's describeProducers with brokerId 3 asks on broker 3's port
        DescribeProducersResponseData answer = proxy.connectToBrokerPort(3).send(new DescribeProducersRequestData()
                .setTopics(List.of(new DescribeProducersRequestData.TopicRequest().setName("orders")
                        .setPartitionIndexes(List.of(0)))), (short) 0);

        // Then broker 3 was asked: a follower's own view, as the option means
        assertEquals(3, answer.throttleTimeMs());
        assertEquals(0, broker1.requests(ApiKeys.DESCRIBE_PRODUCERS) + broker2.requests(ApiKeys.DESCRIBE_PRODUCERS));
    }

    @Test
    void listGroupsOnABrokersPortListsOnlyWhatThatBrokerCoordinates() throws IOException {
        // Given each broker coordinating a group of its own
        for (ScriptedBroker broker : all) {
            broker.on(ApiKeys.LIST_GROUPS, request -> answer(new ListGroupsResponseData().setGroups(List.of(
                    new ListedGroup().setGroupId("group-of-" + broker.id()).setProtocolType("consumer")))));
        }

        // When a client lists groups on broker 1's port and on broker 3's
        ListGroupsResponseData onBroker1 = proxy.connectToBrokerPort(1).send(new ListGroupsRequestData(), (short) 4);
        ListGroupsResponseData onBroker3 = proxy.connectToBrokerPort(3).send(new ListGroupsRequestData(), (short) 4);

        // Then each lists its own group, so an Admin asking every broker sees each group once
        assertEquals(List.of("group-of-1"), onBroker1.groups().stream().map(ListedGroup::groupId).toList());
        assertEquals(List.of("group-of-3"), onBroker3.groups().stream().map(ListedGroup::groupId).toList());
        assertEquals(0, broker2.requests(ApiKeys.LIST_GROUPS));
    }

    @Test
    void describeConfigsOnABrokersPortGoesWholeToThatBroker() throws IOException {
        // Given brokers that describe each resource as "<name> at broker <id>"
        for (ScriptedBroker broker : all) {
            broker.on(ApiKeys.DESCRIBE_CONFIGS, request -> answer(new DescribeConfigsResponseData().setResults(
                    request.data(DescribeConfigsRequestData.class).resources().stream().map(r -> new DescribeConfigsResult()
                            .setResourceType(r.resourceType()).setResourceName(r.resourceName()).setConfigs(List.of(
                                    new DescribeConfigsResourceResult().setName("where")
                                            .setValue(r.resourceName() + " at broker " + broker.id())))).toList())));
        }

        // When kafka-configs --entity-type brokers --entity-name 2 asks on broker 2's port, with a topic
        DescribeConfigsResponseData answer = proxy.connectToBrokerPort(2).send(new DescribeConfigsRequestData()
                .setResources(List.of(new DescribeConfigsResource().setResourceType(ConfigResourceTypes.BROKER)
                                .setResourceName("2"),
                        new DescribeConfigsResource().setResourceType((byte) 2).setResourceName("orders"))), (short) 4);

        // Then broker 2 answered both, as it would directly
        assertEquals(List.of("2 at broker 2", "orders at broker 2"),
                answer.results().stream().map(r -> r.configs().get(0).value()).toList());
        assertEquals(0, broker1.requests(ApiKeys.DESCRIBE_CONFIGS) + broker3.requests(ApiKeys.DESCRIBE_CONFIGS));
    }
}
