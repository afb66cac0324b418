package org.kafscale.proxy.core.security.sasl;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.security.sasl.SaslObserver.Outcome;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of a SASL listener, in front of its request handler, as a Kafka broker's SASL
 * authenticator: before authentication only ApiVersions, SaslHandshake and SaslAuthenticate are
 * served and anything else closes the connection; SaslHandshake lists the enabled mechanisms;
 * each SaslAuthenticate token is evaluated off the event loop ({@link SaslAuthenticator}) and the
 * answer continues on it. A failed exchange answers SASL_AUTHENTICATION_FAILED and closes.
 *
 * <p>Re-authentication (KIP-368): with a maximum session set, SaslAuthenticate v1+ tells the
 * client how long its session lasts; the client authenticates again on the same connection
 * (same mechanism, same principal) before then, and the first other request after the session
 * ended closes the connection. Confined to the connection's event loop.
 */
final class SaslGate implements RequestHandler {
    private static final Logger LOGGER = LoggerFactory.getLogger(SaslGate.class);

    private final SaslAuthenticator authenticator;
    private final ConnectionContext connection;
    /** The virtual cluster whose own listener this is, named in each authentication's audit event. */
    private final Optional<String> listenerCluster;
    private final RequestHandler inner;
    /** The exchange under way (after SaslHandshake, until it completes or fails). */
    private Exchange exchange;
    /** The proven identity; null until the first exchange completes. */
    private Session session;

    private static final class Exchange {
        final SaslMechanism mechanism;
        final SaslServer server;
        boolean evaluating;
        /** Who the first token claims to be, for the audit of a failure; null until read, or when it names none. */
        KafkaPrincipal claimed;
        boolean tokenRead;

        Exchange(SaslMechanism mechanism, SaslServer server) {
            this.mechanism = mechanism;
            this.server = server;
        }
    }

    /** @param expiresAtNanos when the session ends ({@link System#nanoTime}), or {@link Long#MAX_VALUE} */
    private record Session(KafkaPrincipal principal, SaslMechanism mechanism, long expiresAtNanos) {
    }

    SaslGate(SaslAuthenticator authenticator, ConnectionContext connection, RequestHandler inner) {
        this(authenticator, connection, inner, Optional.empty());
    }

    /** @param listenerCluster the virtual cluster whose own listener this is; empty on the shared one */
    SaslGate(SaslAuthenticator authenticator, ConnectionContext connection, RequestHandler inner,
             Optional<String> listenerCluster) {
        this.listenerCluster = listenerCluster;
        this.authenticator = authenticator;
        this.connection = connection;
        this.inner = inner;
        connection.onClose(this::dispose);
        // On a SASL listener a client is admitted by logging in, not by its first (ApiVersions) answer.
        connection.admitOnAuthentication();
    }

    @Override
    public Future<Reply> handle(ConnectionContext context, RequestFrame request) {
        if (request.isApi(ApiKeys.SASL_HANDSHAKE)) {
            return Replies.now(context.loop(), handshake(request));
        }
        if (request.isApi(ApiKeys.SASL_AUTHENTICATE)) {
            return authenticate(context, request);
        }
        if (request.isApi(ApiKeys.API_VERSIONS)) {
            return inner.handle(context, request);
        }
        if (session == null) {
            return Replies.now(context.loop(), new Reply.Close(request.describe() + " from client id '"
                    + request.clientId() + "' before SASL authentication (this listener requires SASL with "
                    + mechanismNames() + ")"));
        }
        long overdue = System.nanoTime() - session.expiresAtNanos();
        if (overdue > 0) {
            return Replies.now(context.loop(), new Reply.Close("the SASL session of " + session.principal()
                    + " ended " + TimeUnit.NANOSECONDS.toMillis(overdue) + " ms before " + request.describe()
                    + " without re-authentication"));
        }
        return inner.handle(context, request);
    }

    private Reply handshake(RequestFrame request) {
        if (request.apiVersion() < SaslAuthenticator.FIRST_FRAMED_HANDSHAKE_VERSION) {
            return refused(null, "SaslHandshake v0 (unframed tokens) is not supported (a client that lists "
                    + "SaslAuthenticate uses v" + SaslAuthenticator.FIRST_FRAMED_HANDSHAKE_VERSION + ")");
        }
        if (exchange != null) {
            return illegalState(request, "a second SaslHandshake before the exchange of "
                    + exchange.mechanism.kafkaName() + " ended");
        }
        String requested = request.decodeBody(SaslHandshakeRequestData.class).mechanism();
        Optional<SaslMechanism> mechanism = SaslMechanism.byKafkaName(requested)
                // The socket's address, for the probe's own login: a PROXY protocol header cannot forge it.
                .filter(m -> authenticator.servers().accepts(m, connection.peerAddress()));
        if (mechanism.isEmpty() || session != null && mechanism.get() != session.mechanism()) {
            String reason = mechanism.isEmpty()
                    ? "SASL mechanism '" + requested + "' is not enabled (enabled: " + mechanismNames() + ")"
                    : "re-authentication with " + requested + " after " + session.mechanism().kafkaName();
            heard(mechanism.map(SaslMechanism::kafkaName).orElse(SaslObserver.UNSUPPORTED), Outcome.FAILED,
                    session == null ? null : session.principal(), reason);
            return sendAndClose(request, new SaslHandshakeResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()).setMechanisms(mechanismNames()), reason);
        }
        exchange = new Exchange(mechanism.get(),
                authenticator.servers().newServer(mechanism.get(), connection.peerAddress()));
        return Reply.send(ResponseFrames.encode(request, new SaslHandshakeResponseData()
                .setErrorCode(Errors.NONE.code()).setMechanisms(mechanismNames())));
    }

    private Future<Reply> authenticate(ConnectionContext context, RequestFrame request) {
        if (exchange == null) {
            return Replies.now(context.loop(), illegalState(request, "SaslAuthenticate without a SaslHandshake"));
        }
        if (exchange.evaluating) {
            return Replies.now(context.loop(), illegalState(request,
                    "SaslAuthenticate while the previous token is still being evaluated"));
        }
        byte[] token = request.decodeBody(SaslAuthenticateRequestData.class).authBytes();
        int maxTokenBytes = authenticator.settings().maxTokenBytes();
        if (token.length > maxTokenBytes) {
            return Replies.now(context.loop(), failed(request, Outcome.REFUSED,
                    "a SASL token of " + token.length + " bytes (at most " + maxTokenBytes + ")"));
        }
        if (!exchange.tokenRead) {
            // Read within the token limit only: a refused token is not even looked at.
            exchange.tokenRead = true;
            exchange.claimed = ClaimedUser.of(exchange.mechanism, token);
        }
        Optional<CompletableFuture<byte[]>> step = authenticator.evaluate(exchange.server, token);
        if (step.isEmpty()) {
            return Replies.now(context.loop(), failed(request, Outcome.REFUSED,
                    "too many SASL authentications in progress (at most "
                            + authenticator.settings().maxConcurrentAuthentications() + ")"));
        }
        exchange.evaluating = true;
        Exchange evaluated = exchange;
        Promise<Reply> reply = context.newReply();
        // A stuck step (a JWKS endpoint that never answers) fails the login rather than hold the client.
        step.get().orTimeout(SaslAuthenticator.STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((challenge, error) -> context.loop().execute(
                        () -> Replies.settle(reply, afterStep(request, evaluated, challenge, error))));
        return reply;
    }

    /** Back on the event loop once a token was evaluated: the answer to its SaslAuthenticate. */
    private Reply afterStep(RequestFrame request, Exchange evaluated, byte[] challenge, Throwable error) {
        evaluated.evaluating = false;
        if (exchange != evaluated) {
            return new Reply.Close("the SASL exchange ended while a token was evaluated");
        }
        try {
            return error != null ? failed(request, error) : evaluated(request, challenge);
        } catch (RuntimeException e) {
            return new Reply.Close("answering " + request.describe() + " failed: " + e);
        }
    }

    /** The server took the token: send its challenge, and on the last step start the session. */
    private Reply evaluated(RequestFrame request, byte[] challenge) {
        SaslServer server = exchange.server;
        SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData().setErrorCode(Errors.NONE.code())
                .setAuthBytes(challenge == null ? new byte[0] : challenge);
        if (!server.isComplete()) {
            return Reply.send(ResponseFrames.encode(request, answer));
        }
        KafkaPrincipal principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
        boolean reauthentication = session != null;
        if (reauthentication && !principal.equals(session.principal())) {
            return failed(request, Outcome.FAILED, "re-authentication as " + principal + " on a connection of "
                    + session.principal());
        }
        long lifetimeMs = sessionLifetimeMs(server);
        session = new Session(principal, exchange.mechanism,
                lifetimeMs > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lifetimeMs) : Long.MAX_VALUE);
        connection.authenticatedAs(principal);
        connection.admitted();
        heard(exchange.mechanism.kafkaName(), reauthentication ? Outcome.REAUTHENTICATED : Outcome.SUCCEEDED,
                principal, null);
        connection.atDebug(LOGGER).log("Client {} authenticated with {}{}", connection.describeClient(),
                exchange.mechanism.kafkaName(), lifetimeMs > 0 ? ", session of " + lifetimeMs + " ms" : "");
        endExchange();
        if (request.apiVersion() >= 1) {
            answer.setSessionLifetimeMs(Math.max(0, lifetimeMs));
        }
        return Reply.send(ResponseFrames.encode(request, answer));
    }

    /**
     * As a Kafka broker: with a maximum session, the session ends at that maximum or when the
     * credential (an OAuth token) expires, whichever is first; without one it lasts as long as the
     * connection.
     */
    private long sessionLifetimeMs(SaslServer server) {
        Optional<Duration> max = authenticator.settings().maxReauth();
        if (max.isEmpty()) {
            return 0;
        }
        long lifetime = max.get().toMillis();
        if (server.getNegotiatedProperty(CREDENTIAL_LIFETIME_MS) instanceof Long expiresAtMs) {
            lifetime = Math.min(lifetime, Math.max(1, expiresAtMs - System.currentTimeMillis()));
        }
        return lifetime;
    }

    /** The negotiated property under which kafka-clients' servers give a credential's expiry (epoch ms). */
    private static final String CREDENTIAL_LIFETIME_MS = "CREDENTIAL.LIFETIME.MS";

    private Reply failed(RequestFrame request, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof SaslAuthenticationException) {
            // Kafka's servers word these messages for the client.
            return failed(request, Outcome.FAILED, cause.getMessage(), cause.getMessage());
        }
        if (cause instanceof TimeoutException) {
            String message = "Authentication failed: the " + exchange.mechanism.kafkaName() + " step took longer than "
                    + SaslAuthenticator.STEP_TIMEOUT.toMillis() + " ms";
            return failed(request, Outcome.FAILED, message, message);
        }
        connection.atDebug(LOGGER).setCause(cause).log("SASL evaluation detail");
        String message = cause instanceof SaslException
                ? "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                        + exchange.mechanism.kafkaName()
                : "Authentication failed: " + cause.getClass().getSimpleName();
        // The client gets Kafka's generic words; the log line says what the server found.
        return failed(request, Outcome.FAILED, message, cause.toString());
    }

    private Reply failed(RequestFrame request, Outcome outcome, String message) {
        return failed(request, outcome, message, message);
    }

    /** SASL_AUTHENTICATION_FAILED with {@code message} to the client, then the connection closes. */
    private Reply failed(RequestFrame request, Outcome outcome, String message, String detail) {
        String mechanism = exchange == null ? SaslObserver.UNSUPPORTED : exchange.mechanism.kafkaName();
        heard(mechanism, outcome, claimed(), detail);
        endExchange();
        return sendAndClose(request, new SaslAuthenticateResponseData()
                        .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(message)
                        .setAuthBytes(new byte[0]),
                "SASL authentication with " + mechanism + " failed: " + detail);
    }

    private Reply illegalState(RequestFrame request, String reason) {
        heard(exchange == null ? SaslObserver.UNSUPPORTED : exchange.mechanism.kafkaName(), Outcome.REFUSED,
                claimed(), reason);
        endExchange();
        return refused(request, reason);
    }

    /** Kafka's ILLEGAL_SASL_STATE answer for the request (a close when there is none), then close. */
    private static Reply refused(RequestFrame request, String reason) {
        if (request == null) {
            return new Reply.Close(reason);
        }
        Reply error = Replies.error(request, Errors.ILLEGAL_SASL_STATE);
        if (error instanceof Reply.Send send) {
            return new Reply.SendAndClose(send.frame(), reason);
        }
        return error;
    }

    private static Reply sendAndClose(RequestFrame request, ApiMessage answer,
                                      String reason) {
        return new Reply.SendAndClose(ResponseFrames.encode(request, answer), reason);
    }

    /** Who a failure is about: the session's principal on re-authentication, else the claimed user. */
    private KafkaPrincipal claimed() {
        if (session != null) {
            return session.principal();
        }
        return exchange == null ? null : exchange.claimed;
    }

    /** Tells the metrics and the audit listener how an authentication ended. */
    private void heard(String mechanism, Outcome outcome, KafkaPrincipal principal, String reason) {
        authenticator.observer().authentication(mechanism, outcome);
        authenticator.listener().authentication(new AuthenticationListener.Attempt(mechanism, outcome, principal,
                connection.id(), connection.clientAddress(), connection.peerAddress(), reason,
                // Reached by its own listener or TLS name: that virtual cluster, whatever the principal's.
                listenerCluster.or(connection::addressedCluster).orElse(null)));
    }

    private List<String> mechanismNames() {
        return authenticator.servers().enabled().stream().map(SaslMechanism::kafkaName).toList();
    }

    private void endExchange() {
        if (exchange != null) {
            dispose(exchange.server);
            exchange = null;
        }
    }

    private void dispose() {
        endExchange();
    }

    private void dispose(SaslServer server) {
        try {
            server.dispose();
        } catch (SaslException e) {
            connection.atDebug(LOGGER).log("Disposing a SASL server failed: {}", e.toString());
        }
    }
}
