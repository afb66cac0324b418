package org.kafscale.proxy.core.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopologySnapshot;

class DescribeClusterResponderTest {
    private static final String PROXY_HOST = "proxy.example";
    private static final int PROXY_PORT = 19092;
    private static final short LATEST = 2;

    /** Brokers 1, 2, 3; the source names 2 as controller. */
    private final StubTopology topology = new StubTopology(TopologySnapshot.of("cluster-a", 2, List.of(
            new BrokerEndpoint(1, "b1.internal", 9092, "rack-1"),
            new BrokerEndpoint(2, "b2.internal", 9093, null),
            new BrokerEndpoint(3, "b3.internal", 9094, "rack-3")), List.of()));

    @Test
    void brokersModeListsEveryBrokerIdAtTheProxysAddressUnfenced() {
        // When a client describes the cluster, fenced brokers included
        DescribeClusterResponseData answer = ask(AdvertiseMode.BROKERS,
                new DescribeClusterRequestData().setIncludeFencedBrokers(true));

        // Then the real ids and racks at the proxy's address, none fenced, the cluster id and controller 2
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(List.of(broker(1, "rack-1"), broker(2, null), broker(3, "rack-3")),
                answer.brokers().stream().map(DescribeClusterBroker::duplicate).toList());
        assertEquals("cluster-a", answer.clusterId());
        assertEquals(2, answer.controllerId());
    }

    @Test
    void singleModeListsNodeZeroOnlyAsBrokerAndController() {
        DescribeClusterResponseData answer = ask(AdvertiseMode.SINGLE, new DescribeClusterRequestData());

        assertEquals(List.of(broker(0, null)), answer.brokers().stream().map(DescribeClusterBroker::duplicate).toList());
        assertEquals(0, answer.controllerId());
    }

    @Test
    void requestForControllerEndpointsIsRefusedAsABrokerRefusesIt() {
        // When a client asks for controller endpoints (what kafka-metadata-quorum --bootstrap-controller would)
        DescribeClusterResponseData answer = ask(AdvertiseMode.BROKERS,
                new DescribeClusterRequestData().setEndpointType(DescribeClusterResponder.CONTROLLER_ENDPOINT));

        // Then MISMATCHED_ENDPOINT_TYPE and no brokers
        assertEquals(Errors.MISMATCHED_ENDPOINT_TYPE.code(), answer.errorCode());
        assertEquals(0, answer.brokers().size());
    }

    private DescribeClusterResponseData ask(AdvertiseMode mode, DescribeClusterRequestData data) {
        RequestFrame request = KafkaWire.requestFrame(new DescribeClusterRequest.Builder(data).build(LATEST), 8, "admin");
        ByteBuf answer;
        try {
            answer = new DescribeClusterResponder(topology, new AdvertisedListener(PROXY_HOST, PROXY_PORT, mode))
                    .answer(request);
        } finally {
            request.frame().release();
        }
        return KafkaWire.parseResponseAndRelease(answer, ApiKeys.DESCRIBE_CLUSTER, LATEST)
                .as(DescribeClusterResponse.class).data();
    }

    private static DescribeClusterBroker broker(int id, String rack) {
        return new DescribeClusterBroker().setBrokerId(id).setHost(PROXY_HOST).setPort(PROXY_PORT).setRack(rack)
                .setIsFenced(false);
    }
}
