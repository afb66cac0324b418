package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a handler of one client request may use: the connection's event loop (everything for a
 * connection runs there), and its broker channels.
 */
public final class ConnectionContext {
    private static final Logger LOGGER = LoggerFactory.getLogger(ConnectionContext.class);
    /** {@link #heldForMillis} while no {@link RequestHandler#handle} call is running. */
    private static final long NOT_HANDLING = -1;

    private final EventLoop loop;
    private final BackendChannelPool backends;
    private final SocketAddress clientAddress;
    private final OptionalInt addressedBroker;
    private long heldForMillis = NOT_HANDLING;
    private final List<Runnable> onClose = new ArrayList<>(1);
    private boolean closed;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;

    /** A connection on the bootstrap listener, which stands for no one broker. */
    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress) {
        this(loop, backends, clientAddress, OptionalInt.empty());
    }

    /** @param addressedBroker the broker id whose port the connection came in on, if any */
    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress,
                             OptionalInt addressedBroker) {
        this.loop = loop;
        this.backends = backends;
        this.clientAddress = clientAddress;
        this.addressedBroker = addressedBroker;
    }

    /** The client connection's event loop. */
    public EventLoop loop() {
        return loop;
    }

    /** The client connection's broker channels. */
    public BackendChannelPool backends() {
        return backends;
    }

    /**
     * The broker this connection addresses, when the listener it came in on stands for one broker
     * (advertise mode ports: a port per broker id); empty on the bootstrap listener and in the
     * modes where every broker shares the one advertised address. Routes whose answer depends on
     * which broker the client asked (per-broker listings, broker config resources, log dirs)
     * consult it first.
     */
    public OptionalInt addressedBroker() {
        return addressedBroker;
    }

    /** The client's address, for log lines. */
    public SocketAddress clientAddress() {
        return clientAddress;
    }

    /**
     * Who the client is: what authentication on this connection established, {@link
     * KafkaPrincipal#ANONYMOUS} until then (and for good on a listener without authentication).
     * Read on the connection's event loop, like everything of it.
     */
    public KafkaPrincipal principal() {
        return principal;
    }

    /** Authentication on this connection established who the client is; call on its event loop. */
    public void authenticatedAs(KafkaPrincipal principal) {
        this.principal = Objects.requireNonNull(principal, "principal");
    }

    public Promise<Reply> newReply() {
        return loop.newPromise();
    }

    /**
     * The request being handled may be held by its broker this much longer than the request
     * timeout: a Fetch's max wait, a JoinGroup's rebalance timeout. The connection gives up on a
     * request only after the request timeout, this hold and a margin, so a legitimately long hold
     * is not answered REQUEST_TIMED_OUT. The longest hold named for a request counts.
     *
     * <p>Valid only while {@link RequestHandler#handle} runs for that request, on the event loop;
     * a call at any other time has no request to extend and is ignored.
     */
    public void expectHeldFor(long extraMillis) {
        if (heldForMillis == NOT_HANDLING) {
            LOGGER.debug("Ignoring expectHeldFor({}) outside a request's handling (client {})", extraMillis,
                    clientAddress);
            return;
        }
        heldForMillis = Math.max(heldForMillis, extraMillis);
    }

    /** The connection is about to call {@link RequestHandler#handle} for one request. */
    void beginRequest() {
        heldForMillis = 0;
    }

    /** That call returned: how much longer than the request timeout its broker may hold the request. */
    long endRequest() {
        long held = heldForMillis;
        heldForMillis = NOT_HANDLING;
        return held;
    }

    /**
     * Runs {@code step} on the event loop once the client connection has closed (at once if it has
     * already): what a handler keeps for the connection's later requests, such as Fetch answers
     * read ahead, is freed there. Call on the event loop.
     */
    public void onClose(Runnable step) {
        if (closed) {
            step.run();
            return;
        }
        onClose.add(step);
    }

    /** The client connection closed: runs every {@link #onClose} step once. */
    void closed() {
        if (closed) {
            return;
        }
        closed = true;
        List<Runnable> steps = List.copyOf(onClose);
        onClose.clear();
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                LOGGER.warn("A close step of client {} failed: {}", clientAddress, e.toString());
            }
        }
    }
}
