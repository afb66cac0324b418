package org.kafscale.proxy.routing.admin;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.Listener;
import org.apache.kafka.common.message.DescribeQuorumResponseData.Node;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;

/**
 * DescribeQuorum's answer (v2+) lists every voter's and observer's listeners, the controllers'
 * real addresses among them. Any broker answers (it asks the controllers); every listener in the
 * answer is then given the proxy's advertised address, so the quorum's ids, epochs and offsets
 * stay true and no controller or broker address reaches the client. Those endpoints are not
 * reachable as controllers through the proxy: they say who is in the quorum, not where.
 */
final class QuorumEndpoints {
    private final AdvertisedListener advertised;

    QuorumEndpoints(AdvertisedListener advertised) {
        this.advertised = advertised;
    }

    /** The broker's answer to {@code request}, forwarded by {@code forwarded}, with its endpoints rewritten. */
    Future<Reply> rewrite(ConnectionContext context, RequestFrame request, Future<Reply> forwarded) {
        Promise<Reply> reply = context.newReply();
        forwarded.addListener(f -> {
            Reply answer = (Reply) f.getNow();
            if (!(answer instanceof Reply.Send send)) {
                Replies.settle(reply, answer);
                return;
            }
            try {
                DescribeQuorumResponseData data = new DescribeQuorumResponseData(
                        ResponseFrames.body(ApiKeys.DESCRIBE_QUORUM, request.apiVersion(), send.frame()), request.apiVersion());
                for (Node node : data.nodes()) {
                    for (Listener listener : node.listeners()) {
                        listener.setHost(advertised.hostOf(node.nodeId())).setPort(advertised.portOf(node.nodeId()));
                    }
                }
                Replies.settle(reply, Reply.send(ResponseFrames.encode(ApiKeys.DESCRIBE_QUORUM, request.apiVersion(),
                        request.correlationId(), data)));
            } catch (RuntimeException e) {
                Replies.settle(reply, new Reply.Close(request.describe() + " answer does not parse: " + e));
            } finally {
                send.frame().release();
            }
        });
        return reply;
    }

}
