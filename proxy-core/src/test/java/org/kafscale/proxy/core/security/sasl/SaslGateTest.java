package org.kafscale.proxy.core.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;

/** One connection's SASL gate in front of a handler that records what reaches it. */
class SaslGateTest {
    @TempDir
    Path dir;

    private final EventLoop loop = new DefaultEventLoop();
    private final ConnectionContext connection = new ConnectionContext(loop, null,
            new InetSocketAddress("127.0.0.1", 50000));
    private final List<String> reachedInner = new ArrayList<>();
    private final List<String> outcomes = new ArrayList<>();
    private final List<AuthenticationListener.Attempt> attempts = new ArrayList<>();
    private SaslAuthenticator authenticator;
    private RequestHandler gate;

    @BeforeEach
    void gate() throws Exception {
        Path users = Files.write(dir.resolve("users"),
                List.of(CredentialsFileTest.line("alice", ScramMechanism.SCRAM_SHA_512, "secret")));
        SaslSettings settings = new SaslSettings(List.of(SaslMechanism.PLAIN, SaslMechanism.SCRAM_SHA_512),
                Optional.of(users), Optional.empty(), Optional.empty(), 4, 1024);
        authenticator = SaslAuthenticator.start(settings, (mechanism, outcome) -> outcomes.add(mechanism + "/"
                + outcome.label()), Optional.empty(), attempts::add);
        RequestHandler inner = (ctx, request) -> {
            reachedInner.add(request.knownApi().orElseThrow().name);
            return Replies.now(ctx.loop(), Reply.NONE);
        };
        gate = authenticator.guard(c -> inner).forConnection(connection);
    }

    @AfterEach
    void stop() {
        authenticator.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void metadataBeforeAuthenticationClosesAndNeverReachesTheHandler() throws Exception {
        Reply reply = handle(new MetadataRequest(new MetadataRequestData(), (short) 12));
        Reply.Close close = assertInstanceOf(Reply.Close.class, reply);
        assertTrue(close.reason().contains("before SASL authentication"), close.reason());
        assertEquals(List.of(), reachedInner);
    }

    @Test
    void apiVersionsBeforeAuthenticationPassesToTheHandler() throws Exception {
        handle(new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 3));
        assertEquals(List.of("ApiVersions"), reachedInner);
    }

    @Test
    void handshakeForAMechanismNotEnabledListsTheEnabledOnesAndCloses() throws Exception {
        Reply reply = handle(handshake("OAUTHBEARER"));
        SaslHandshakeResponse answer = (SaslHandshakeResponse) KafkaWire.parseResponseAndRelease(
                assertInstanceOf(Reply.SendAndClose.class, reply).frame(), ApiKeys.SASL_HANDSHAKE, (short) 1).body();
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, answer.error());
        assertEquals(List.of("PLAIN", "SCRAM-SHA-512"), answer.data().mechanisms());
        assertEquals(List.of("unsupported/failed"), outcomes, "labels are bounded by the enabled mechanisms");
    }

    @Test
    void authenticateWithoutAHandshakeAnswersIllegalSaslStateAndCloses() throws Exception {
        Reply reply = handle(authenticate("\0alice\0secret"));
        SaslAuthenticateResponse answer = authenticateAnswer(assertInstanceOf(Reply.SendAndClose.class, reply).frame());
        assertEquals(Errors.ILLEGAL_SASL_STATE, answer.error());
    }

    @Test
    void tokenOverTheLimitFailsWithoutBeingEvaluated() throws Exception {
        handle(handshake("PLAIN")).discard();
        Reply reply = handle(authenticate("\0alice\0" + "x".repeat(2000)));
        SaslAuthenticateResponse answer = authenticateAnswer(assertInstanceOf(Reply.SendAndClose.class, reply).frame());
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED, answer.error());
        assertTrue(answer.errorMessage().contains("at most 1024"), answer.errorMessage());
        assertEquals(List.of("PLAIN/refused"), outcomes);
    }

    @Test
    void wrongPlainPasswordFailsAndCloses() throws Exception {
        handle(handshake("PLAIN")).discard();
        Reply reply = handle(authenticate("\0alice\0wrong"));
        SaslAuthenticateResponse answer = authenticateAnswer(assertInstanceOf(Reply.SendAndClose.class, reply).frame());
        assertEquals(Errors.SASL_AUTHENTICATION_FAILED, answer.error());
        assertEquals(KafkaPrincipal.ANONYMOUS, onLoop(connection::principal));
        assertEquals(List.of("PLAIN/failed"), outcomes);
        // The audit listener hears who tried (the name claimed in clear), from where, and why it failed
        AuthenticationListener.Attempt attempt = attempts.get(0);
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"), attempt.principal());
        assertEquals(SaslObserver.Outcome.FAILED, attempt.outcome());
        assertEquals(connection.id(), attempt.connection());
        assertEquals(new InetSocketAddress("127.0.0.1", 50000), attempt.clientAddress());
        assertTrue(attempt.reason() != null && !attempt.reason().contains("wrong"), "never the password: "
                + attempt.reason());
    }

    @Test
    void rightPlainPasswordSetsThePrincipalAndLetsRequestsThrough() throws Exception {
        // Given
        handle(handshake("PLAIN")).discard();

        // When
        Reply reply = handle(authenticate("\0alice\0secret"));
        handle(new MetadataRequest(new MetadataRequestData(), (short) 12));

        // Then
        SaslAuthenticateResponse answer = authenticateAnswer(assertInstanceOf(Reply.Send.class, reply).frame());
        assertEquals(Errors.NONE, answer.error());
        assertEquals(0, answer.sessionLifetimeMs(), "no maximum session: the session lasts as long as the connection");
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"), onLoop(connection::principal));
        assertEquals(List.of("Metadata"), reachedInner);
        assertEquals(List.of("PLAIN/succeeded"), outcomes);
        assertEquals(List.of(new AuthenticationListener.Attempt("PLAIN", SaslObserver.Outcome.SUCCEEDED,
                new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"), connection.id(),
                new InetSocketAddress("127.0.0.1", 50000), new InetSocketAddress("127.0.0.1", 50000), null)), attempts);
    }

    @Test
    void aLoginOnAVirtualClustersOwnListenerNamesThatVirtualCluster() throws Exception {
        // Given: the gate of team-c's own listener
        RequestHandler tenantGate = authenticator.guard(c -> (ctx, request) -> Replies.now(ctx.loop(), Reply.NONE),
                Optional.of("team-c")).forConnection(connection);

        // When alice logs in there
        handle(tenantGate, handshake("PLAIN")).discard();
        handle(tenantGate, authenticate("\0alice\0secret")).discard();

        // Then the audit listener hears the listener's virtual cluster
        assertEquals("team-c", attempts.get(0).virtualCluster());
    }

    @Test
    void reauthenticationWithAnotherMechanismIsRefused() throws Exception {
        handle(handshake("PLAIN")).discard();
        handle(authenticate("\0alice\0secret")).discard();
        Reply reply = handle(handshake("SCRAM-SHA-512"));
        SaslHandshakeResponse answer = (SaslHandshakeResponse) KafkaWire.parseResponseAndRelease(
                assertInstanceOf(Reply.SendAndClose.class, reply).frame(), ApiKeys.SASL_HANDSHAKE, (short) 1).body();
        assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, answer.error());
    }

    private static AbstractRequest handshake(String mechanism) {
        return new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism)).build((short) 1);
    }

    private static AbstractRequest authenticate(String token) {
        return new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData()
                .setAuthBytes(token.getBytes(StandardCharsets.UTF_8))).build((short) 2);
    }

    private static SaslAuthenticateResponse authenticateAnswer(ByteBuf frame) {
        return (SaslAuthenticateResponse) KafkaWire.parseResponseAndRelease(frame, ApiKeys.SASL_AUTHENTICATE, (short) 2)
                .body();
    }

    private <T> T onLoop(java.util.concurrent.Callable<T> read) throws Exception {
        return loop.submit(read).get(5, TimeUnit.SECONDS);
    }

    /** Hands the request to the gate on the loop, as the connection does, and waits for its reply. */
    private Reply handle(AbstractRequest request) throws Exception {
        return handle(gate, request);
    }

    private Reply handle(RequestHandler on, AbstractRequest request) throws Exception {
        RequestFrame frame = KafkaWire.requestFrame(request, 7, "client");
        try {
            Future<Reply> reply = loop.submit(() -> on.handle(connection, frame)).get(5, TimeUnit.SECONDS);
            return reply.get(10, TimeUnit.SECONDS);
        } finally {
            frame.frame().release();
        }
    }
}
