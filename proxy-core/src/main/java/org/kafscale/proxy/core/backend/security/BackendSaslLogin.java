package org.kafscale.proxy.core.backend.security;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslClient;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.kafscale.proxy.core.backend.BackendChannel;
import org.kafscale.proxy.core.codec.OutboundRequest;
import org.kafscale.proxy.core.codec.OutboundRequests;

/**
 * Authenticates a fresh broker channel as the proxy: SaslHandshake, then SaslAuthenticate rounds
 * driven by kafka-clients' (and the JDK's, for PLAIN) {@link SaslClient}s, exactly as a Kafka
 * client does after ApiVersions. Completes with the session lifetime the broker granted (KIP-368;
 * {@code 0} for none), or fails with a message naming the cause; the caller closes the channel.
 *
 * <p>Everything runs on the channel's event loop but the two slow steps: fetching an OAUTHBEARER
 * token runs on {@link OAuthTokens}' own thread first, and SCRAM's key derivation on threads of
 * its own ({@link KeyDerivation}).
 */
public final class BackendSaslLogin implements AutoCloseable {
    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;
    private static final byte[] EMPTY = new byte[0];

    private final BackendSaslSettings settings;
    private final String clientId;
    private final OAuthTokens tokens;

    public BackendSaslLogin(BackendSaslSettings settings, String clientId) {
        this.settings = settings;
        this.clientId = clientId;
        this.tokens = settings.isOAuthBearer() ? new OAuthTokens(settings.oauth()) : null;
    }

    public String mechanism() {
        return settings.mechanism();
    }

    /**
     * Runs the exchange on {@code channel}; call on the channel's loop. The future always
     * completes, on that loop: a step that throws fails it rather than leaving the channel's
     * requests waiting for a connection that never comes.
     */
    public Future<Long> authenticate(BackendChannel channel, long timeoutMillis) {
        EventLoop loop = channel.channel().eventLoop();
        Promise<Long> done = loop.newPromise();
        if (tokens == null) {
            new Exchange(channel, timeoutMillis, done, null).start();
            return done;
        }
        // An identity provider that does not answer must not hold the channel's requests forever.
        ScheduledFuture<?> deadline = loop.schedule(() -> done.tryFailure(new SaslException(
                "no OAUTHBEARER token from the token endpoint within " + timeoutMillis + " ms")),
                timeoutMillis, TimeUnit.MILLISECONDS);
        done.addListener(f -> deadline.cancel(false));
        tokens.token().whenComplete((token, failure) -> {
            try {
                loop.execute(() -> {
                    if (failure != null) {
                        done.tryFailure(unwrap(failure));
                    } else {
                        new Exchange(channel, timeoutMillis, done, token).start();
                    }
                });
            } catch (RuntimeException rejected) {
                // The loop is shutting down: the channel goes with it.
                done.tryFailure(rejected);
            }
        });
        return done;
    }

    @Override
    public void close() {
        if (tokens != null) {
            tokens.close();
        }
    }

    private SaslClient newClient(String host, OAuthBearerToken token) throws SaslException {
        CredentialsCallbackHandler callbacks = new CredentialsCallbackHandler(settings.username(), settings.password(),
                token);
        String mechanism = settings.mechanism();
        try {
            if (ScramMechanism.isScram(mechanism)) {
                return new ScramSaslClient(ScramMechanism.forMechanismName(mechanism), callbacks);
            }
        } catch (NoSuchAlgorithmException e) {
            throw new SaslException(mechanism + " is not available in this JVM", e);
        }
        if (settings.isOAuthBearer()) {
            return new OAuthBearerSaslClient(callbacks);
        }
        // PLAIN: the JDK's own client, as kafka-clients uses.
        SaslClient client = Sasl.createSaslClient(new String[] {mechanism}, null, "kafka", host, Map.of(), callbacks);
        if (client == null) {
            throw new SaslException("no SASL client for " + mechanism + " in this JVM");
        }
        return client;
    }

    /**
     * Threads for SCRAM's key derivation, shared by every broker channel of the JVM (connectors
     * have no close of their own): daemons, as many as there are cores.
     */
    private static final class KeyDerivation {
        static final ExecutorService THREADS = Executors.newFixedThreadPool(
                Math.max(1, Runtime.getRuntime().availableProcessors()), daemonThreads());

        private static ThreadFactory daemonThreads() {
            AtomicInteger count = new AtomicInteger();
            return r -> {
                Thread t = new Thread(r, "backend-sasl-key-derivation-" + count.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
    }

    /** One channel's exchange. */
    private final class Exchange {
        private final BackendChannel channel;
        private final long timeoutMillis;
        private final Promise<Long> done;
        private final OAuthBearerToken token;
        private SaslClient client;

        Exchange(BackendChannel channel, long timeoutMillis, Promise<Long> done, OAuthBearerToken token) {
            this.channel = channel;
            this.timeoutMillis = timeoutMillis;
            this.done = done;
            this.token = token;
        }

        void start() {
            send(OutboundRequests.saslHandshake(settings.mechanism()), HANDSHAKE_VERSION, this::handshaken);
        }

        /** Runs one step; whatever it throws fails the exchange. */
        private void guarded(Runnable action) {
            try {
                action.run();
            } catch (RuntimeException e) {
                fail(e.toString());
            }
        }

        private void handshaken(SaslHandshakeResponseData answer) {
            if (answer.errorCode() != Errors.NONE.code()) {
                fail(Errors.forCode(answer.errorCode()) == Errors.UNSUPPORTED_SASL_MECHANISM
                        ? "the broker does not enable " + settings.mechanism() + " (it enables " + answer.mechanisms() + ")"
                        : "SaslHandshake failed: " + Errors.forCode(answer.errorCode()).message());
                return;
            }
            try {
                client = newClient(channel.broker().host(), token);
                step(client.hasInitialResponse() ? client.evaluateChallenge(EMPTY) : EMPTY);
            } catch (SaslException e) {
                fail(e.getMessage());
            }
        }

        private void step(byte[] response) {
            send(OutboundRequests.saslAuthenticate(response == null ? EMPTY : response), AUTHENTICATE_VERSION,
                    this::answered);
        }

        private void answered(SaslAuthenticateResponseData answer) {
            if (answer.errorCode() != Errors.NONE.code()) {
                Errors error = Errors.forCode(answer.errorCode());
                fail(error.name() + (answer.errorMessage() != null ? ": " + answer.errorMessage() : ""));
                return;
            }
            if (client.isComplete()) {
                succeed(answer);
                return;
            }
            evaluate(answer.authBytes()).whenComplete((next, error) -> onLoop(() -> {
                if (error != null) {
                    Throwable cause = unwrap(error);
                    fail(cause instanceof SaslException ? cause.getMessage() : cause.toString());
                } else if (!client.isComplete() || (next != null && next.length > 0)) {
                    step(next);
                } else {
                    succeed(answer);
                }
            }));
        }

        /**
         * The client's answer to a challenge. SCRAM's answer to the server's first message derives
         * the salted password (PBKDF2, thousands of HMAC rounds): that runs on
         * {@link KeyDerivation#THREADS}, never on the channel's event loop; the other steps are cheap.
         */
        private CompletableFuture<byte[]> evaluate(byte[] challenge) {
            if (!ScramMechanism.isScram(settings.mechanism())) {
                try {
                    return CompletableFuture.completedFuture(client.evaluateChallenge(challenge));
                } catch (SaslException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return client.evaluateChallenge(challenge);
                } catch (SaslException e) {
                    throw new CompletionException(e);
                }
            }, KeyDerivation.THREADS);
        }

        /** Continues on the channel's loop; a loop that is shutting down fails the exchange. */
        private void onLoop(Runnable action) {
            try {
                channel.channel().eventLoop().execute(() -> guarded(action));
            } catch (RuntimeException rejected) {
                done.tryFailure(rejected);
            }
        }

        private void succeed(SaslAuthenticateResponseData answer) {
            dispose();
            done.trySuccess(answer.sessionLifetimeMs());
        }

        private <T> void send(OutboundRequest<T> request, short version, Consumer<T> then) {
            guarded(() -> sendNow(request, version, then));
        }

        private <T> void sendNow(OutboundRequest<T> request, short version, Consumer<T> then) {
            ApiKeys api = request.api();
            channel.request(request.encode(version, clientId), timeoutMillis).addListener(f -> {
                if (!f.isSuccess()) {
                    fail(api.name + " failed: " + f.cause().getMessage());
                    return;
                }
                ByteBuf frame = (ByteBuf) f.getNow();
                T answer;
                try {
                    answer = request.decodeAnswer(version, frame);
                } catch (RuntimeException e) {
                    fail("the answer to " + api.name + " does not parse: " + e);
                    return;
                } finally {
                    frame.release();
                }
                guarded(() -> then.accept(answer));
            });
        }

        private void fail(String reason) {
            dispose();
            done.tryFailure(new SaslException(settings.mechanism() + " authentication failed: " + reason));
        }

        private void dispose() {
            if (client != null) {
                try {
                    client.dispose();
                } catch (SaslException ignored) {
                    // Nothing held that matters once the exchange is over.
                }
            }
        }
    }
}
