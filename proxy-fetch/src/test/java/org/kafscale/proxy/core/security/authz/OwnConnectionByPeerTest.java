package org.kafscale.proxy.core.security.authz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.RequestHeaderDecoder;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestFrames;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.TopologySnapshot;
import org.kafscale.proxy.routing.apis.Apis;

/**
 * The proxy's own connections (its readiness probe) pass authorization unchecked, and are known by
 * the socket's address: a PROXY protocol header that names the probe's address must not make a
 * client pass for it.
 */
class OwnConnectionByPeerTest {
    private static final InetSocketAddress LISTENER = new InetSocketAddress("127.0.0.1", 9092);
    private static final InetSocketAddress PROBE_SOCKET = new InetSocketAddress("127.0.0.1", 50_001);
    private static final InetSocketAddress BALANCER = new InetSocketAddress("127.0.0.1", 50_002);

    private final EventLoop loop = new DefaultEventLoop();
    private final OwnConnections own = new OwnConnections();
    private final List<RequestFrame> routed = new ArrayList<>();
    private final List<RequestFrame> sent = new ArrayList<>();
    private final RequestHandler route = (context, request) -> {
        routed.add(request);
        return loop.newSucceededFuture(Reply.send(ResponseFrames.encode(request, new CreateTopicsResponseData())));
    };
    /** No rule: every checked request is refused, unless the connection is the proxy's own. */
    private final RequestHandler authorizing = PolicyChain.of(new AuthorizationPolicy(Apis.catalog(),
            new AclAuthorizer(AclRules.NONE), new StubTopology(TopologySnapshot.EMPTY),
            AuthorizationObserver.NONE, own)).around(route);

    OwnConnectionByPeerTest() {
        own.listenerAt(LISTENER);
        own.channelConnected(new BrokerEndpoint(-1, "127.0.0.1", 9092, null), PROBE_SOCKET, LISTENER);
    }

    @AfterEach
    void stop() {
        sent.forEach(r -> ReferenceCountUtil.release(r.frame()));
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void theProbesOwnSocketIsNotChecked() throws Exception {
        // Given the probe's connection: its socket's address is its own (a LOCAL header keeps it)
        ConnectionContext probe = new ConnectionContext(loop, null, PROBE_SOCKET, PROBE_SOCKET, OptionalInt.empty());

        // When it creates a topic
        RequestFrame request = createTopic();
        release(handle(probe, request));

        // Then the request went on as it was
        assertSame(request, routed.get(0));
    }

    @Test
    void aHeaderNamingTheProbesAddressIsCheckedAsAnyClient() throws Exception {
        // Given a client behind a balancer whose header names the probe's address
        ConnectionContext forged = new ConnectionContext(loop, null, PROBE_SOCKET, BALANCER, OptionalInt.empty());

        // When it creates a topic
        RequestFrame request = createTopic();
        release(handle(forged, request));

        // Then it was checked like any client: refused, never passed on as it was
        assertFalse(routed.contains(request));
    }

    private RequestFrame createTopic() {
        CreateTopicsRequestData body = new CreateTopicsRequestData().setTimeoutMs(1000);
        body.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("orders").setNumPartitions(1)
                .setReplicationFactor((short) 1));
        EmbeddedChannel decoder = new EmbeddedChannel(new RequestHeaderDecoder());
        decoder.writeInbound(Unpooled.wrappedBuffer(TestFrames.request(body, (short) 7, 1)));
        RequestFrame request = decoder.readInbound();
        decoder.finishAndReleaseAll();
        sent.add(request);
        return request;
    }

    private Reply handle(ConnectionContext context, RequestFrame request) throws Exception {
        Future<Reply> reply = loop.submit(() -> authorizing.handle(context, request)).get(5, TimeUnit.SECONDS);
        return reply.get(5, TimeUnit.SECONDS);
    }

    private static void release(Reply reply) {
        if (reply instanceof Reply.Send send) {
            send.frame().release();
        }
    }
}
