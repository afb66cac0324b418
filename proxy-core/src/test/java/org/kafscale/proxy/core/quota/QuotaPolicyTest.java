package org.kafscale.proxy.core.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.tenant.TenantNames;
import org.kafscale.proxy.core.tenant.VirtualCluster;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.testing.TestRecords;

/**
 * The quota policy in a chain in front of a route that answers Produce and Fetch, on a real event
 * loop, with the rates measured on a clock the test moves: which answers carry a throttle, how
 * long, whose meters are shared, and that a throttled connection stops being read.
 */
class QuotaPolicyTest {
    private static final short PRODUCE_VERSION = 9;
    private static final short FETCH_VERSION = 12;
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final KafkaPrincipal DAVE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "dave");
    private static final KafkaPrincipal BOB = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob");
    private static final VirtualClusters CLUSTERS = new VirtualClusters(List.of(
            new VirtualCluster("team-a", VirtualCluster.derivedClusterId("team-a"), TenantNames.prefixed("a."),
                    Set.of(ALICE, DAVE)),
            new VirtualCluster("team-b", VirtualCluster.derivedClusterId("team-b"), TenantNames.prefixed("b."),
                    Set.of(BOB))));

    private final EventLoop loop = new DefaultEventLoop();
    private final AtomicLong clock = new AtomicLong();
    private final List<RequestFrame> requests = new ArrayList<>();
    private final List<String> observed = new CopyOnWriteArrayList<>();
    /** The size of the Fetch answers the route gives; their broker throttle. */
    private int fetchThrottleFromBroker;
    private final QuotaObserver observer = new QuotaObserver() {
        @Override
        public void counted(String virtualCluster, KafkaPrincipal principal, QuotaKind kind, long bytes) {
            observed.add("counted " + virtualCluster + " " + principal.getName() + " " + kind.label());
        }

        @Override
        public void throttled(String virtualCluster, KafkaPrincipal principal, QuotaKind kind, long millis) {
            observed.add("throttled " + virtualCluster + " " + principal.getName() + " " + kind.label() + " "
                    + millis + " ms");
        }
    };

    /** Loop time the route says each request took, as handling it on the loop would count it. */
    private long routeLoopNanos;

    /** Answers a Produce with offset 7, a Metadata with no topics and a Fetch with three records. */
    private final RequestHandler route = (context, request) -> {
        context.loopTimeUsed(routeLoopNanos);
        if (request.apiKey() == ApiKeys.METADATA.id) {
            return Replies.now(context.loop(), Reply.send(ResponseFrames.encode(request, new MetadataResponseData())));
        }
        if (request.apiKey() == ApiKeys.PRODUCE.id) {
            return Replies.now(context.loop(), Reply.send(ResponseFrames.encode(request, new ProduceResponseData())));
        }
        FetchResponseData answer = new FetchResponseData().setThrottleTimeMs(fetchThrottleFromBroker);
        answer.responses().add(new FetchResponseData.FetchableTopicResponse().setTopic("a.orders")
                .setPartitions(List.of(new FetchResponseData.PartitionData().setPartitionIndex(0)
                        .setRecords(TestRecords.plain("one", "two", "three")))));
        return Replies.now(context.loop(), Reply.send(ResponseFrames.encode(request, answer)));
    };

    @AfterEach
    void stop() {
        requests.forEach(r -> r.frame().release());
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void producePastThePrincipalsRateIsAnsweredWithItsThrottleAndTheConnectionIsNotReadMeanwhile() throws Exception {
        // Given alice may produce one request's bytes per second on her own
        int size = produce().frame().readableBytes();
        QuotaPolicy policy = policy(Map.of("team-a", new TenantQuotas(QuotaLimits.NONE,
                new QuotaLimits(size, 0), Map.of())));
        ConnectionContext alice = connection(ALICE);

        // When she sends three at once: the first is within her burst, the second one second past it,
        // the third two seconds
        assertEquals(List.of(0, 1000, 2000), List.of(produceThrottle(policy, alice), produceThrottle(policy, alice),
                produceThrottle(policy, alice)));

        // Then her connection is not read for the last throttle
        long left = loop.submit(alice::throttleLeftNanos).get(5, TimeUnit.SECONDS);
        assertTrue(left > TimeUnit.MILLISECONDS.toNanos(1000), "throttled for " + left + " ns more");
        assertEquals(List.of("counted team-a alice produce", "counted team-a alice produce",
                "throttled team-a alice produce 1000 ms", "counted team-a alice produce",
                "throttled team-a alice produce 2000 ms"), observed);

        // When the clock passes the time her bytes were due, she sends within her rate again
        clock.addAndGet(TimeUnit.SECONDS.toNanos(3));
        assertEquals(0, produceThrottle(policy, alice));
    }

    @Test
    void eachPrincipalHasItsOwnMeterAndAVirtualClusterWithoutQuotasIsNotHeld() throws Exception {
        int size = produce().frame().readableBytes();
        QuotaPolicy policy = policy(Map.of("team-a", new TenantQuotas(QuotaLimits.NONE,
                new QuotaLimits(size, 0), Map.of())));
        ConnectionContext alice = connection(ALICE);
        ConnectionContext dave = connection(DAVE);
        ConnectionContext bob = connection(BOB);
        produceThrottle(policy, alice);
        assertEquals(1000, produceThrottle(policy, alice));

        // Dave's bytes are his own; bob's virtual cluster has no quota at all
        assertEquals(0, produceThrottle(policy, dave));
        for (int i = 0; i < 5; i++) {
            assertEquals(0, produceThrottle(policy, bob));
        }
    }

    @Test
    void theVirtualClustersRateIsSharedByItsPrincipalsAndANamedPrincipalHasItsOwn() throws Exception {
        // Given team-a may produce one request's bytes per second in all, and dave ten times that on his own
        int size = produce().frame().readableBytes();
        QuotaPolicy policy = policy(Map.of("team-a", new TenantQuotas(new QuotaLimits(size, 0),
                QuotaLimits.NONE, Map.of(DAVE, new QuotaLimits(10L * size, 0)))));
        ConnectionContext alice = connection(ALICE);
        ConnectionContext dave = connection(DAVE);

        // When alice sends one and dave one: dave is past the virtual cluster's rate, not his own
        assertEquals(0, produceThrottle(policy, alice));
        assertEquals(1000, produceThrottle(policy, dave));
    }

    @Test
    void fetchAnswersAreCountedAndTheLongerOfTheBrokersAndTheQuotasThrottleIsKept() throws Exception {
        // Given alice may fetch one answer's bytes per second
        QuotaPolicy sizing = policy(Map.of());
        int answerSize = fetchAnswerSize(sizing, connection(ALICE));
        QuotaPolicy policy = policy(Map.of("team-a", new TenantQuotas(QuotaLimits.NONE,
                new QuotaLimits(0, answerSize), Map.of())));
        ConnectionContext alice = connection(ALICE);

        // When she fetches twice, the second answer is a second past her burst
        assertEquals(0, fetch(policy, alice).throttleTimeMs());
        assertEquals(1000, fetch(policy, alice).throttleTimeMs());

        // When the broker throttles longer than the quota, its throttle stays
        fetchThrottleFromBroker = 5000;
        assertEquals(5000, fetch(policy, alice).throttleTimeMs());

        // Produce is not counted against a fetch quota
        assertEquals(0, produceThrottle(policy, alice));
    }

    @Test
    void requestTimeIsChargedToTheNextRequestAndAnyApisAnswerCarriesTheThrottle() throws Exception {
        // Given alice may take 10 % of a loop thread's time, and each request takes 0.1 s of it
        QuotaPolicy policy = policy(Map.of("team-a", new TenantQuotas(QuotaLimits.NONE,
                new QuotaLimits(0, 0, 10), Map.of())));
        ConnectionContext alice = connection(ALICE);
        routeLoopNanos = TimeUnit.MILLISECONDS.toNanos(100);

        // When she sends three Metadata requests at once: the first is charged nothing yet, the
        // second the first's 0.1 s (her one second's worth), the third one more
        List<Integer> throttles = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            throttles.add(metadataThrottle(policy, alice));
        }

        // Then the third answer carries the second it put her past her rate
        assertEquals(List.of(0, 0, 1000), throttles, observed.toString());
        assertTrue(observed.contains("throttled team-a alice request_time 1000 ms"), observed.toString());
    }

    @Test
    void oneAnswerThrottlesForAtMostTenSeconds() throws Exception {
        int size = produce().frame().readableBytes();
        QuotaPolicy policy = policy(Map.of("team-a", new TenantQuotas(QuotaLimits.NONE,
                new QuotaLimits(Math.max(1, size / 30), 0), Map.of())));
        assertEquals(QuotaPolicy.MAX_THROTTLE_MILLIS, produceThrottle(policy, connection(ALICE)));
    }

    private QuotaPolicy policy(Map<String, TenantQuotas> quotas) {
        return new QuotaPolicy(quotas, observer, clock::get);
    }

    private ConnectionContext connection(KafkaPrincipal principal) throws Exception {
        ConnectionContext connection = new ConnectionContext(loop, null, new InetSocketAddress("127.0.0.1", 50000));
        loop.submit(() -> {
            connection.authenticatedAs(principal);
            // as the tenant policy, first in the chain, places it
            CLUSTERS.of(principal).ifPresent(cluster -> connection.placeIn(cluster.name()));
        }).get(5, TimeUnit.SECONDS);
        return connection;
    }

    private RequestFrame produce() {
        RequestFrame request = KafkaWire.requestFrame(new ProduceRequest.Builder(PRODUCE_VERSION, PRODUCE_VERSION,
                KafkaWire.produceData("a.orders", 0, "k", "v")).build(PRODUCE_VERSION), 42, "producer");
        requests.add(request);
        return request;
    }

    private int produceThrottle(QuotaPolicy policy, ConnectionContext connection) throws Exception {
        ByteBuf frame = assertInstanceOf(Reply.Send.class, handle(policy, connection, produce())).frame();
        return KafkaWire.parseResponseAndRelease(frame, ApiKeys.PRODUCE, PRODUCE_VERSION).as(ProduceResponse.class)
                .data().throttleTimeMs();
    }

    private int metadataThrottle(QuotaPolicy policy, ConnectionContext connection) throws Exception {
        RequestFrame request = KafkaWire.requestFrame(new MetadataRequest.Builder(new MetadataRequestData()
                .setTopics(List.of())).build((short) 12), 44, "admin");
        requests.add(request);
        ByteBuf frame = assertInstanceOf(Reply.Send.class, handle(policy, connection, request)).frame();
        return KafkaWire.parseResponseAndRelease(frame, ApiKeys.METADATA, (short) 12).as(MetadataResponse.class)
                .data().throttleTimeMs();
    }

    private FetchResponseData fetch(QuotaPolicy policy, ConnectionContext connection) throws Exception {
        ByteBuf frame = assertInstanceOf(Reply.Send.class, handle(policy, connection, fetchRequest())).frame();
        return KafkaWire.parseResponseAndRelease(frame, ApiKeys.FETCH, FETCH_VERSION).as(FetchResponse.class).data();
    }

    private int fetchAnswerSize(QuotaPolicy policy, ConnectionContext connection) throws Exception {
        ByteBuf frame = assertInstanceOf(Reply.Send.class, handle(policy, connection, fetchRequest())).frame();
        try {
            return frame.readableBytes();
        } finally {
            frame.release();
        }
    }

    private RequestFrame fetchRequest() {
        FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20);
        data.topics().add(new FetchRequestData.FetchTopic().setTopic("a.orders").setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
        RequestFrame request = KafkaWire.requestFrame(new FetchRequest(data, FETCH_VERSION), 43, "consumer");
        requests.add(request);
        return request;
    }

    private Reply handle(QuotaPolicy policy, ConnectionContext connection, RequestFrame request) throws Exception {
        RequestHandler handler = PolicyChain.of(policy).around(route);
        Future<Reply> reply = loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS);
        return reply.get(5, TimeUnit.SECONDS);
    }
}
