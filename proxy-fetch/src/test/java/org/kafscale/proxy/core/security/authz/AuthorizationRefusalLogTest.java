package org.kafscale.proxy.core.security.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kafscale.proxy.core.testing.LogLines.fields;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.core.testing.TestFrames;
import org.kafscale.proxy.core.testing.TestRecords;
import org.kafscale.proxy.routing.apis.Apis;
import org.slf4j.LoggerFactory;

/**
 * A refusal's log line is about the connection the refused request came on: it carries that
 * connection's id, client address, client id and principal as fields. Refusal lines are limited
 * per policy instance, not per process.
 */
class AuthorizationRefusalLogTest {
    private static final short PRODUCE_VERSION = 9;
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");

    private final EventLoop loop = new DefaultEventLoop();
    /** Alice may write "orders" and nothing else. */
    private final AclAuthorizer authorizer = new AclAuthorizer(new AclRules(List.of(new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL),
            new AccessControlEntry(ALICE.toString(), "*", AclOperation.WRITE, AclPermissionType.ALLOW)))));
    private final StubTopology topology = StubTopology.of().withPartition("orders", 0, 1)
            .withPartition("audit", 0, 1);
    /** Stands for the brokers: answers whatever reaches it with an empty Produce answer. */
    private final RequestHandler route = (context, request) -> Replies.now(context.loop(),
            Reply.send(ResponseFrames.encode(request, new ProduceResponseData())));
    private final Logger logger = (Logger) LoggerFactory.getLogger(AuthorizationPolicy.class);
    private final Level levelBefore = logger.getLevel();
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    AuthorizationRefusalLogTest() {
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.INFO);
    }

    @AfterEach
    void stop() {
        logger.detachAppender(lines);
        logger.setLevel(levelBefore);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void aRefusalLineCarriesTheFieldsOfTheConnectionItCameOn() throws Exception {
        // Given alice's connection, with client id orders-app, through authorization
        RequestHandler authorizing = PolicyChain.of(policy()).around(route);
        ConnectionContext connection = connection(50000, "orders-app");

        // When she produces to audit, which she may not write
        produce(authorizing, connection, "audit");

        // Then one line says so, carrying her connection's id, address, client id and principal
        assertEquals(1, lines.list.size());
        ILoggingEvent line = lines.list.get(0);
        assertTrue(line.getFormattedMessage().startsWith("Refused Produce(key 0) v9"), line.getFormattedMessage());
        assertEquals(Map.of(ConnectionContext.CONN, connection.id(), ConnectionContext.CLIENT, "/127.0.0.1:50000",
                ConnectionContext.CLIENT_ID, "orders-app", ConnectionContext.PRINCIPAL, "User:alice"), fields(line));
    }

    @Test
    void eachPolicyInstanceLimitsItsOwnRefusalLines() throws Exception {
        // Given two authorization policies, as two connections' own, and a connection through each
        RequestHandler first = PolicyChain.of(policy()).around(route);
        RequestHandler second = PolicyChain.of(policy()).around(route);
        ConnectionContext one = connection(50001, "first-app");
        ConnectionContext two = connection(50002, "second-app");

        // When each connection is refused twice
        produce(first, one, "audit");
        produce(first, one, "audit");
        produce(second, two, "audit");
        produce(second, two, "audit");

        // Then each instance logged its first refusal, with its own connection's id, and held back its second
        assertEquals(List.of(one.id(), two.id()), lines.list.stream()
                .map(line -> fields(line).get(ConnectionContext.CONN)).toList());
    }

    private AuthorizationPolicy policy() {
        return new AuthorizationPolicy(Apis.catalog(), authorizer, topology, AuthorizationObserver.NONE,
                new OwnConnections());
    }

    private ConnectionContext connection(int port, String clientId) {
        ConnectionContext connection = new ConnectionContext(loop, null, new InetSocketAddress("127.0.0.1", port));
        connection.authenticatedAs(ALICE);
        connection.clientIdSeen(clientId);
        return connection;
    }

    /** A Produce of one record to partition 0 of {@code topic}, through {@code handler}; its answer released. */
    private void produce(RequestHandler handler, ConnectionContext connection, String topic) throws Exception {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(TestRecords.plain("v")))));
        RequestFrame request = TestFrames.requestFrame(new ProduceRequestData().setAcks((short) -1)
                .setTimeoutMs(30_000).setTopicData(topics), PRODUCE_VERSION, 42);
        try {
            Future<Reply> reply = loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS);
            assertInstanceOf(Reply.Send.class, reply.get(5, TimeUnit.SECONDS)).frame().release();
        } finally {
            request.frame().release();
        }
    }
}
