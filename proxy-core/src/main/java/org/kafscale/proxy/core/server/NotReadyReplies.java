package org.kafscale.proxy.core.server;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.kafscale.proxy.core.codec.MetadataRequests;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.local.MetadataResponder;

/**
 * The answer to a request that arrives while the proxy must not route (spec §3.10): the request's
 * own shape at its own version with REQUEST_TIMED_OUT everywhere, then the connection closes.
 *
 * <p>Metadata lists no brokers (and no topics for an all-topics request) so clients treat it as
 * failed metadata; FindCoordinator names no node. Other APIs use Kafka's own error answer. A
 * request with no answer (an unknown key) just closes.
 */
public final class NotReadyReplies {
    static final String REASON = "the proxy is not ready to route (no fresh broker list)";

    private NotReadyReplies() {
    }

    public static Reply forRequest(RequestFrame request) {
        try {
            ByteBuf answer;
            if (request.isApi(ApiKeys.METADATA)) {
                answer = ResponseFrames.encode(request, metadata(request.decodeBody(MetadataRequestData.class), request.apiVersion()));
            } else if (request.isApi(ApiKeys.FIND_COORDINATOR)) {
                answer = ResponseFrames.encode(request,
                        findCoordinator(request.decodeBody(FindCoordinatorRequestData.class), request.apiVersion()));
            } else {
                answer = ResponseFrames.errorResponse(request, Errors.REQUEST_TIMED_OUT);
            }
            return new Reply.SendAndClose(answer, REASON);
        } catch (RuntimeException e) {
            return new Reply.Close(REASON + "; no answer exists for " + request.describe());
        }
    }

    private static MetadataResponseData metadata(MetadataRequestData request, short version) {
        MetadataResponseData response = new MetadataResponseData().setControllerId(-1).setThrottleTimeMs(0);
        if (MetadataRequests.isAllTopics(request, version)) {
            return response;
        }
        for (MetadataRequestData.MetadataRequestTopic t : request.topics()) {
            response.topics().add(new MetadataResponseTopic().setErrorCode(Errors.REQUEST_TIMED_OUT.code())
                    .setName(t.name() != null ? t.name() : MetadataResponder.nameForUnknownId(version)).setTopicId(t.topicId()));
        }
        return response;
    }

    private static FindCoordinatorResponseData findCoordinator(FindCoordinatorRequestData request, short version) {
        FindCoordinatorResponseData response = new FindCoordinatorResponseData().setThrottleTimeMs(0);
        if (version < 4) {
            return response.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setNodeId(-1).setHost("").setPort(-1);
        }
        List<String> keys = request.coordinatorKeys();
        keys.forEach(k -> response.coordinators().add(new Coordinator().setKey(k).setNodeId(-1).setHost("").setPort(-1)
                .setErrorCode(Errors.REQUEST_TIMED_OUT.code())));
        return response;
    }
}
