package org.kafscale.proxy.core.local;

import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.topology.Topology;

/**
 * Answers DescribeCluster from the topology, with the nodes, controller id and cluster id that
 * Metadata shows ({@link AdvertisedCluster}): forwarded, the broker's answer would hand the client
 * every real broker address.
 *
 * <p>As a Kafka broker does: a request for controller endpoints (v1+) is refused with
 * MISMATCHED_ENDPOINT_TYPE (clients cannot reach controllers through the proxy either), an unknown
 * endpoint type with UNSUPPORTED_ENDPOINT_TYPE (INVALID_REQUEST at v0). Fenced brokers (v2
 * {@code IncludeFencedBrokers}) are never listed: the topology holds live brokers only, so every
 * listed broker is unfenced. Authorized operations are not known to the proxy and are reported as
 * "not requested".
 */
public final class DescribeClusterResponder {
    static final byte BROKER_ENDPOINT = 1;
    static final byte CONTROLLER_ENDPOINT = 2;
    private static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;

    private final Topology topology;
    private final AdvertisedListener advertised;

    public DescribeClusterResponder(Topology topology, AdvertisedListener advertised) {
        this.topology = topology;
        this.advertised = advertised;
    }

    public ByteBuf answer(RequestFrame request) {
        DescribeClusterRequestData data = request.decodeBody(DescribeClusterRequestData.class);
        return ResponseFrames.encode(request, build(data, request.apiVersion()));
    }

    DescribeClusterResponseData build(DescribeClusterRequestData request, short version) {
        DescribeClusterResponseData response = new DescribeClusterResponseData().setThrottleTimeMs(0)
                .setEndpointType(BROKER_ENDPOINT).setClusterAuthorizedOperations(OPERATIONS_NOT_REQUESTED);
        if (request.endpointType() == CONTROLLER_ENDPOINT) {
            return response.setErrorCode((version == 0 ? Errors.INVALID_REQUEST : Errors.MISMATCHED_ENDPOINT_TYPE).code())
                    .setErrorMessage("The request was sent to an endpoint of type BROKER, but we wanted an endpoint "
                            + "of type CONTROLLER");
        }
        if (request.endpointType() != BROKER_ENDPOINT) {
            return response.setErrorCode((version == 0 ? Errors.INVALID_REQUEST : Errors.UNSUPPORTED_ENDPOINT_TYPE).code())
                    .setErrorMessage("Unsupported endpoint type " + request.endpointType());
        }
        AdvertisedCluster cluster = new AdvertisedCluster(advertised, topology.snapshot());
        response.setErrorCode(Errors.NONE.code())
                .setClusterId(cluster.snapshot().clusterId())
                .setControllerId(cluster.controllerId());
        for (AdvertisedCluster.Node node : cluster.nodes()) {
            response.brokers().add(new DescribeClusterBroker().setBrokerId(node.id()).setHost(node.host())
                    .setPort(node.port()).setRack(node.rack()).setIsFenced(false));
        }
        return response;
    }
}
