package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.apis.ApiCatalog;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.ApiVersionsResponder;
import org.kafscale.proxy.core.local.BrokerApiVersions;
import org.kafscale.proxy.core.local.DescribeClusterResponder;
import org.kafscale.proxy.core.local.DescribeTopicPartitionsResponder;
import org.kafscale.proxy.core.local.FindCoordinatorResponder;
import org.kafscale.proxy.core.local.MetadataResponder;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestApiCatalog;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

class RequestDispatcherTest {
    private static final ApiCatalog APIS = TestApiCatalog.catalog();
    private final EventLoop loop = new DefaultEventLoop();
    private final ConnectionContext context = new ConnectionContext(loop, null, new InetSocketAddress("127.0.0.1", 50000));
    private final StubTopology topology = StubTopology.of(new BrokerEndpoint(1, "b1.internal", 9092, null));
    private final AdvertisedListener advertised = new AdvertisedListener("proxy", 9092, AdvertiseMode.BROKERS);
    private final BrokerApiVersions brokerVersions = new BrokerApiVersions();
    private final AtomicInteger routed = new AtomicInteger();
    private final RequestDispatcher dispatcher = new RequestDispatcher(APIS,
            new ApiVersionsResponder(APIS, brokerVersions),
            new MetadataResponder(topology, advertised), new FindCoordinatorResponder(topology, advertised),
            new DescribeClusterResponder(topology, advertised), new DescribeTopicPartitionsResponder(topology, advertised),
            () -> true, (ctx, request) -> {
                routed.incrementAndGet();
                return Replies.now(ctx.loop(), Reply.NONE);
            });

    @AfterEach
    void stopLoop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void keyUnknownToKafkaClientsClosesTheConnectionNamingKeyVersionAndClient() throws Exception {
        // Given a well-formed header with key 999, which no Kafka version defines
        RequestFrame request = rawRequest((short) 999, (short) 0, 5, "odd-client");

        // When dispatched
        Reply reply = dispatch(request);

        // Then the connection closes with a reason naming the key, version and client; nothing is routed
        Reply.Close close = assertInstanceOf(Reply.Close.class, reply);
        assertTrue(close.reason().contains("key 999") && close.reason().contains("v0")
                && close.reason().contains("odd-client"), close.reason());
        assertEquals(0, routed.get());
    }

    @Test
    void knownKeyTheProxyDoesNotAdvertiseIsNeverForwarded() throws Exception {
        // Given DescribeLogDirs, which kafka-clients knows and ApiCatalog serves only on a broker's own port (it names broker disks)
        RequestFrame request = KafkaWire.requestFrame(new DescribeLogDirsRequest.Builder(new DescribeLogDirsRequestData())
                .build((short) 4), 6, "admin");

        // When dispatched
        Reply reply = dispatch(request);

        // Then closed, not routed
        Reply.Close close = assertInstanceOf(Reply.Close.class, reply);
        assertTrue(close.reason().contains("DescribeLogDirs(key 35)"), close.reason());
        assertEquals(0, routed.get());
    }

    @Test
    void saslHandshakeGetsUnsupportedMechanismWithNoMechanismsThenTheConnectionCloses() throws Exception {
        // Given a client configured for SASL on this listener, which has none
        RequestFrame request = KafkaWire.requestFrame(new SaslHandshakeRequest.Builder(
                new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1), 7, "sasl-client");

        // When dispatched
        Reply reply = dispatch(request);

        // Then UNSUPPORTED_SASL_MECHANISM with an empty mechanism list, and the connection closes with a reason
        Reply.SendAndClose answer = assertInstanceOf(Reply.SendAndClose.class, reply);
        SaslHandshakeResponseData data = KafkaWire.parseResponseAndRelease(answer.frame(), ApiKeys.SASL_HANDSHAKE,
                (short) 1).as(SaslHandshakeResponse.class).data();
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), data.errorCode());
        assertEquals(List.of(), data.mechanisms());
        assertTrue(answer.reason().contains("sasl-client"), answer.reason());
    }

    @Test
    void saslAuthenticateClosesTheConnection() throws Exception {
        RequestFrame request = KafkaWire.requestFrame(new SaslAuthenticateRequest.Builder(
                new SaslAuthenticateRequestData().setAuthBytes(new byte[] {1})).build((short) 2), 8, "sasl-client");

        Reply reply = dispatch(request);

        assertInstanceOf(Reply.Close.class, reply);
        assertEquals(0, routed.get());
    }

    @Test
    void advertisedKeyIsRouted() throws Exception {
        // Given a ListGroups, which ApiCatalog serves
        RequestFrame request = KafkaWire.requestFrame(new org.apache.kafka.common.requests.ListGroupsRequest.Builder(
                new org.apache.kafka.common.message.ListGroupsRequestData()).build((short) 4), 9, "admin");

        // When dispatched
        dispatch(request);

        // Then it reaches the router
        assertEquals(1, routed.get());
    }

    @Test
    void apiVersionsBeforeTheFirstBrokerReportIsHeldUntilItArrives() throws Exception {
        // Given no broker has reported yet
        RequestFrame request = KafkaWire.requestFrame(new ApiVersionsRequest.Builder().build((short) 3), 10, "client");
        Future<Reply> reply = loop.submit(() -> dispatcher.handle(context, request)).get(5, TimeUnit.SECONDS);
        assertFalse(reply.isDone(), "nothing is advertised before a broker has said what it serves");

        // When the first broker reports, with transaction.version finalized
        ApiVersionsResponseData report = new ApiVersionsResponseData().setFinalizedFeaturesEpoch(4);
        report.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.PRODUCE.id)
                .setMinVersion((short) 3).setMaxVersion((short) 9));
        report.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey().setName("transaction.version")
                .setMinVersionLevel((short) 2).setMaxVersionLevel((short) 2));
        brokerVersions.update(1, report);

        // Then the held answer goes out with the broker's ranges and features
        Reply.Send send = assertInstanceOf(Reply.Send.class, reply.get(5, TimeUnit.SECONDS));
        request.frame().release();
        ApiVersionsResponseData data = KafkaWire.parseResponseAndRelease(send.frame(), ApiKeys.API_VERSIONS, (short) 3)
                .as(ApiVersionsResponse.class).data();
        assertEquals(9, data.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion());
        assertEquals(2, data.finalizedFeatures().find("transaction.version").maxVersionLevel());
    }

    /** Dispatches on the loop, waits for the reply, and releases the request. */
    private Reply dispatch(RequestFrame request) throws Exception {
        try {
            Future<Reply> reply = loop.submit(() -> dispatcher.handle(context, request)).get(5, TimeUnit.SECONDS);
            return reply.get(5, TimeUnit.SECONDS);
        } finally {
            request.frame().release();
        }
    }

    private static RequestFrame rawRequest(short apiKey, short version, int correlationId, String clientId) {
        byte[] id = clientId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        io.netty.buffer.ByteBuf frame = Unpooled.buffer();
        frame.writeShort(apiKey).writeShort(version).writeInt(correlationId).writeShort(id.length).writeBytes(id)
                .writeInt(0xCAFE);
        return KafkaWire.requestFrame(frame);
    }
}
