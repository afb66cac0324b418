package org.kafscale.proxy.core.security.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TLS of one Kafka listener (shared by its bootstrap port and every per-broker port): makes each
 * new connection's {@link SslHandler} from the current certificate, maps client certificates to
 * principals, and owns the two background threads TLS needs — one checking the files for a new
 * certificate, and a small pool for the handshake's expensive steps (key exchange, certificate
 * verification), which the JDK engine hands out as delegated tasks so no event loop blocks on them.
 */
public final class ListenerTls implements AutoCloseable {
    /** Threads for delegated handshake tasks: enough for the two cores the proxy typically has. */
    private static final int HANDSHAKE_THREADS = 2;

    private final ListenerTlsSettings settings;
    private final ReloadingSslContext<ReloadingSslContext.ListenerContexts> context;
    private final CertificatePrincipals principals;
    private final ScheduledExecutorService reloads;
    private final ExecutorService handshakeTasks;

    private ListenerTls(ListenerTlsSettings settings, ReloadingSslContext<ReloadingSslContext.ListenerContexts> context,
                        CertificatePrincipals principals) {
        this.settings = settings;
        this.context = context;
        this.principals = principals;
        ScheduledThreadPoolExecutor reloader = new ScheduledThreadPoolExecutor(1, daemon("kafka-tls-reload"));
        reloader.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.reloads = reloader;
        this.handshakeTasks = new ThreadPoolExecutor(HANDSHAKE_THREADS, HANDSHAKE_THREADS, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), daemon("kafka-tls-handshake"));
    }

    /**
     * Loads the certificate and starts watching its files.
     *
     * @throws TlsMaterialException if a file cannot be read or used
     * @throws IllegalArgumentException if the principal mapping rules do not parse
     */
    public static ListenerTls start(ListenerTlsSettings settings) {
        CertificatePrincipals principals = new CertificatePrincipals(settings.principalMappingRules());
        ListenerTls tls = new ListenerTls(settings, ReloadingSslContext.load(settings), principals);
        long every = settings.reloadInterval().toMillis();
        tls.reloads.scheduleWithFixedDelay(tls.context::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
        return tls;
    }

    /**
     * Builds the context once and drops it: what start-up checks before anything binds.
     *
     * @throws TlsMaterialException if a file cannot be read or used
     * @throws IllegalArgumentException if the principal mapping rules do not parse
     */
    public static void check(ListenerTlsSettings settings) {
        new CertificatePrincipals(settings.principalMappingRules());
        ServerSslContexts.build(settings);
        ServerSslContexts.buildSelfClient(settings);
    }

    /** A handler for one new connection, with the certificate current now and the handshake timeout. */
    public SslHandler newHandler(ByteBufAllocator allocator) {
        SslHandler handler = context.current().server().newHandler(allocator, handshakeTasks);
        handler.setHandshakeTimeoutMillis(settings.handshakeTimeout().toMillis());
        return handler;
    }

    /**
     * A client handler for the proxy's own readiness probe, which connects to this listener as a
     * client would: it trusts only the listener's certificate and, when the listener asks for
     * client certificates, presents that certificate (so the client CA must trust it too).
     */
    public SslHandler newSelfClientHandler(ByteBufAllocator allocator) {
        return selfClient(context.current().selfClient().newHandler(allocator, handshakeTasks));
    }

    /**
     * {@link #newSelfClientHandler(ByteBufAllocator)} that sends {@code serverName} as its SNI
     * name: in advertise mode sni the listener routes a connection by it.
     */
    public SslHandler newSelfClientHandler(ByteBufAllocator allocator, String serverName) {
        // The port is only a session-cache key for the engine; the name is what goes out.
        return selfClient(context.current().selfClient().newHandler(allocator, serverName, -1, handshakeTasks));
    }

    private SslHandler selfClient(SslHandler handler) {
        handler.setHandshakeTimeoutMillis(settings.handshakeTimeout().toMillis());
        return handler;
    }

    public CertificatePrincipals principals() {
        return principals;
    }

    public ListenerTlsSettings settings() {
        return settings;
    }

    /** Checks the files now (tests; the periodic check does the same). */
    public boolean reloadIfChanged() {
        return context.reloadIfChanged();
    }

    @Override
    public void close() {
        reloads.shutdownNow();
        handshakeTasks.shutdownNow();
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
