package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.kafscale.proxy.core.testing.ScriptedBroker.Response.answer;

import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.authz.AclAuthorizer;
import org.kafscale.proxy.core.security.authz.AclRules;
import org.kafscale.proxy.core.security.authz.AuthorizationObserver;
import org.kafscale.proxy.core.security.authz.AuthorizationPolicy;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.routing.apis.Apis;

/**
 * With ACLs on, authorization and routing both read a request's body, and a narrowed request is
 * routed as a new frame: the body is parsed once per client request all the same. Counted on every
 * frame that reached authorization or routing, once the request was answered.
 */
class DecodeOnceTest {
    private static final short ACKS_ALL = -1;
    private static final int LONG_POLL_MS = 30_000;

    private final RoutingHarness proxy = new RoutingHarness();
    private final ScriptedBroker broker1 = proxy.broker(1);
    private final ScriptedBroker broker2 = proxy.broker(2);
    private final StubTopology topology = proxy.topology();
    /** Parses of each request's frames, summed when its answer was ready, by the API asked. */
    private final List<String> parses = new CopyOnWriteArrayList<>();

    @BeforeEach
    void authorizeInFrontOfRouting() {
        // Anyone may write and read "orders"; "audit" is nobody's.
        AclRules rules = new AclRules(List.of(allow("orders", AclOperation.WRITE), allow("orders", AclOperation.READ)));
        AclAuthorizer authorizer = new AclAuthorizer(rules);
        proxy.aroundRouter(router -> {
            List<RequestFrame> routed = new CopyOnWriteArrayList<>();
            RequestHandler authorizing = PolicyChain.of(new AuthorizationPolicy(Apis.catalog(), authorizer,
                    topology, AuthorizationObserver.NONE, new OwnConnections())).around((context, request) -> {
                        routed.add(request);
                        return router.handle(context, request);
                    });
            return (context, request) -> {
                Future<Reply> reply = authorizing.handle(context, request);
                // Read while the client's frame is still held: it is released once the reply is written.
                reply.addListener(done -> {
                    int count = request.bodyParses();
                    for (RequestFrame sent : routed) {
                        count += sent == request ? 0 : sent.bodyParses();
                    }
                    routed.clear();
                    parses.add(request.knownApi().orElseThrow().name() + " " + count);
                });
                return reply;
            };
        });
        topology.withPartition("orders", 0, 1).withPartition("orders", 1, 2).withPartition("audit", 0, 1);
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void produceSplitOverTwoBrokersIsParsedOnce() throws IOException {
        // Given brokers that store whatever they are sent
        storeEverything(broker1);
        storeEverything(broker2);

        // When a producer writes to orders-0 (broker 1) and orders-1 (broker 2)
        ProduceResponseData answer = proxy.connect().send(Produces.request(topology, ACKS_ALL,
                Produces.recordPerPartition("orders-0", "orders-1")), Produces.VERSION);

        // Then both were stored, and authorization and routing shared one parse
        assertEquals(Errors.NONE.code(), Produces.results(topology, answer).get("orders-1").errorCode());
        assertEquals(List.of("PRODUCE 1"), parses);
    }

    @Test
    void produceNarrowedByAuthorizationIsParsedOnce() throws IOException {
        // Given a broker that stores whatever it is sent
        storeEverything(broker1);

        // When a producer writes to orders-0 and to audit-0, which it may not write
        ProduceResponseData answer = proxy.connect().send(Produces.request(topology, ACKS_ALL,
                Produces.recordPerPartition("orders-0", "audit-0")), Produces.VERSION);

        // Then orders-0 was stored and audit-0 refused, and the narrowed request routed was not parsed again
        assertEquals(Errors.NONE.code(), Produces.results(topology, answer).get("orders-0").errorCode());
        assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                Produces.results(topology, answer).get("audit-0").errorCode());
        assertEquals(1, broker1.requests(ApiKeys.PRODUCE));
        assertEquals(List.of("PRODUCE 1"), parses);
    }

    @Test
    void fetchSplitOverTwoBrokersIsParsedOnce() throws IOException {
        // Given broker 1 with a record for orders-0, and broker 2 with nothing new for orders-1
        broker1.on(ApiKeys.FETCH, request -> answer(Fetches.answer(request.data(FetchRequestData.class),
                p -> TestRecords.plain("from 1"))));
        broker2.on(ApiKeys.FETCH, request -> answer(Fetches.empty(request.data(FetchRequestData.class))));

        // When a consumer fetches orders-0 (broker 1) and orders-1 (broker 2)
        FetchResponseData answer = proxy.connect().send(Fetches.request(topology, LONG_POLL_MS, "orders-0", "orders-1"),
                Fetches.VERSION);

        // Then it got broker 1's record, and authorization and routing shared one parse
        assertEquals(Map.of("orders-0", List.of("from 1"), "orders-1", List.of()), Fetches.values(topology, answer));
        assertEquals(List.of("FETCH 1"), parses);
    }

    private static void storeEverything(ScriptedBroker broker) {
        broker.on(ApiKeys.PRODUCE, request -> answer(Produces.answer(request.data(ProduceRequestData.class),
                p -> Produces.stored(0))));
    }

    private static AclBinding allow(String topic, AclOperation operation) {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry("User:ANONYMOUS", "*", operation, AclPermissionType.ALLOW));
    }
}
