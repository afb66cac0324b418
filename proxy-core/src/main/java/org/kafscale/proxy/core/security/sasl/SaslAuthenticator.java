package org.kafscale.proxy.core.security.sasl;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.server.RequestHandlers;

/**
 * SASL on a Kafka listener, shared by all its connections: wraps each connection's handler in a
 * {@link SaslGate}, and evaluates the SASL steps (SCRAM's key derivation, a JWT's signature check,
 * a JWKS fetch) on threads of its own, so no event loop waits for them. At most
 * {@link SaslSettings#maxConcurrentAuthentications} steps are queued or running at once; a
 * client past that fails authentication at once instead of waiting behind a flood.
 */
public final class SaslAuthenticator implements AutoCloseable {
    /**
     * SaslHandshake v0 sends the tokens after it without Kafka headers, which the listener's
     * framing cannot read: refused.
     */
    static final short FIRST_FRAMED_HANDSHAKE_VERSION = 1;
    /**
     * Longest one SASL step may take before the login fails: a JWKS fetch has its own retries
     * within this, and a client's request timeout (30 s by default) is longer, so the client hears
     * SASL_AUTHENTICATION_FAILED rather than a timeout of its own.
     */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(15);

    private final SaslSettings settings;
    private final SaslServers servers;
    private final SaslObserver observer;
    private final AuthenticationListener listener;
    private final Semaphore steps;
    private final ExecutorService evaluators;

    SaslAuthenticator(SaslSettings settings, SaslServers servers, SaslObserver observer) {
        this(settings, servers, observer, AuthenticationListener.NONE);
    }

    SaslAuthenticator(SaslSettings settings, SaslServers servers, SaslObserver observer,
                      AuthenticationListener listener) {
        this.settings = settings;
        this.servers = servers;
        this.observer = observer;
        this.listener = listener;
        this.steps = new Semaphore(settings.maxConcurrentAuthentications());
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        AtomicInteger count = new AtomicInteger();
        this.evaluators = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "sasl-authentication-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Reads the credentials and sets up token validation. Blocks (the JWKS fetch): call at
     * start-up, off any event loop.
     *
     * @throws IllegalArgumentException or {@link java.io.UncheckedIOException} for a bad credentials file
     */
    public static SaslAuthenticator start(SaslSettings settings, SaslObserver observer) {
        return start(settings, observer, Optional.empty());
    }

    /** As {@link #start(SaslSettings, SaslObserver)}, also admitting the readiness probe's {@code probe} login. */
    public static SaslAuthenticator start(SaslSettings settings, SaslObserver observer, Optional<ProbeLogin> probe) {
        return start(settings, observer, probe, AuthenticationListener.NONE);
    }

    /** As {@link #start(SaslSettings, SaslObserver, Optional)}, telling {@code listener} of each authentication. */
    public static SaslAuthenticator start(SaslSettings settings, SaslObserver observer, Optional<ProbeLogin> probe,
                                          AuthenticationListener listener) {
        return new SaslAuthenticator(settings, SaslServers.start(settings, probe), observer, listener);
    }

    /** Each connection's handler behind its own gate: nothing but SASL and ApiVersions passes before authentication. */
    public RequestHandlers guard(RequestHandlers inner) {
        return guard(inner, Optional.empty());
    }

    /**
     * As {@link #guard(RequestHandlers)}, on the own listener of the virtual cluster {@code listenerCluster}
     * (empty: the shared one), which each authentication's audit event then names.
     */
    public RequestHandlers guard(RequestHandlers inner, Optional<String> listenerCluster) {
        return connection -> new SaslGate(this, connection, inner.forConnection(connection), listenerCluster);
    }

    /**
     * What ApiVersions advertises for SASL on this listener: Kafka's full ranges. SaslHandshake v0
     * stays listed although the proxy refuses it, because librdkafka enables SASL only when v0 is
     * in the range (it then uses v1, as Java clients do, when SaslAuthenticate is listed too).
     */
    public static List<ApiVersion> advertisedApis() {
        return List.of(range(ApiKeys.SASL_HANDSHAKE), range(ApiKeys.SASL_AUTHENTICATE));
    }

    private static ApiVersion range(ApiKeys api) {
        return new ApiVersion().setApiKey(api.id).setMinVersion(api.oldestVersion()).setMaxVersion(api.latestVersion());
    }

    SaslSettings settings() {
        return settings;
    }

    SaslServers servers() {
        return servers;
    }

    SaslObserver observer() {
        return observer;
    }

    AuthenticationListener listener() {
        return listener;
    }

    /**
     * Evaluates one client token off the event loop; completes with the server's challenge (or
     * fails with its exception). Empty when {@link SaslSettings#maxConcurrentAuthentications}
     * steps are already queued or running.
     */
    Optional<CompletableFuture<byte[]>> evaluate(SaslServer server, byte[] token) {
        if (!steps.tryAcquire()) {
            return Optional.empty();
        }
        CompletableFuture<byte[]> challenge = new CompletableFuture<>();
        try {
            evaluators.execute(() -> {
                try {
                    challenge.complete(server.evaluateResponse(token));
                } catch (Exception | LinkageError e) {
                    challenge.completeExceptionally(e);
                } finally {
                    steps.release();
                }
            });
        } catch (RuntimeException e) {
            steps.release();
            challenge.completeExceptionally(e);
        }
        return Optional.of(challenge);
    }

    @Override
    public void close() {
        evaluators.shutdownNow();
        servers.close();
    }
}
