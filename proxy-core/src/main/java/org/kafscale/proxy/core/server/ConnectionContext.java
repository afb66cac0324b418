package org.kafscale.proxy.core.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.backend.BackendChannelPool;
import org.kafscale.proxy.core.logging.LogFields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;
import org.slf4j.spi.NOPLoggingEventBuilder;

/**
 * What a handler of one client request may use: the connection's event loop (everything for a
 * connection runs there), and its broker channels.
 *
 * <p>As {@link LogFields} it is what every log line about the connection carries: its id, the
 * client's address, the client id it last sent and its principal ({@value #CONN}, {@value #CLIENT},
 * {@value #CLIENT_ID}, {@value #PRINCIPAL}).
 */
public final class ConnectionContext implements LogFields {
    /** The log field keys, documented in docs/operations.md. */
    public static final String CONN = "conn";
    public static final String CLIENT = "client";
    public static final String CLIENT_ID = "client_id";
    public static final String PRINCIPAL = "principal";

    private static final Logger LOGGER = LoggerFactory.getLogger(ConnectionContext.class);

    private final EventLoop loop;
    private final BackendChannelPool backends;
    private final String id = ConnectionIds.next();
    private final SocketAddress clientAddress;
    private final SocketAddress peerAddress;
    /** The client id of the client's latest request header; null until one names it. */
    private String clientId;
    private final OptionalInt addressedBroker;
    private final Optional<String> addressedCluster;
    /** The request being handled, which a hold named now is for; null while none is. */
    private Hold holding;
    private boolean admitsOnAuthentication;
    private Runnable onAdmitted = () -> { };
    private final List<Runnable> onClose = new ArrayList<>(1);
    private boolean closed;
    /** Who the client proved to be; anonymous until a listener's authentication says otherwise. */
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;
    /** Until when (the loop's clock) the client is not read: a quota's throttle; 0 for none. */
    private long throttledUntilNanos;
    /** Tells the connection's read gate that a throttle began. */
    private Runnable onThrottle = () -> { };
    /** Event-loop time spent on this connection since a quota last took it. */
    private long loopNanos;
    /** Whether that time is measured: only once a request-time quota asks, so no other connection pays for it. */
    private boolean metersLoopTime;
    /**
     * The virtual cluster the tenant policy placed this connection in; empty until then, or without
     * virtual clusters. Held as the Optional every policy reads, so a request allocates none.
     */
    private Optional<String> virtualCluster = Optional.empty();

    /** A connection on the bootstrap listener, which stands for no one broker. */
    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress) {
        this(loop, backends, clientAddress, OptionalInt.empty());
    }

    /** @param addressedBroker the broker id whose port the connection came in on, if any */
    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress,
                             OptionalInt addressedBroker) {
        this(loop, backends, clientAddress, clientAddress, addressedBroker);
    }

    /**
     * @param clientAddress who the client is: the source of its PROXY protocol header, else {@code peerAddress}
     * @param peerAddress the socket's remote address
     * @param addressedBroker the broker id whose port the connection came in on, if any
     */
    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress,
                             SocketAddress peerAddress, OptionalInt addressedBroker) {
        this(loop, backends, clientAddress, peerAddress, addressedBroker, Optional.empty());
    }

    /**
     * @param addressedCluster the virtual cluster whose TLS server names (advertise mode sni, its
     *     sniHostSuffix) the connection asked for, if any
     */
    public ConnectionContext(EventLoop loop, BackendChannelPool backends, SocketAddress clientAddress,
                             SocketAddress peerAddress, OptionalInt addressedBroker, Optional<String> addressedCluster) {
        this.addressedCluster = addressedCluster;
        this.loop = loop;
        this.backends = backends;
        this.clientAddress = clientAddress;
        this.peerAddress = peerAddress;
        this.addressedBroker = addressedBroker;
        if (backends != null) {
            backends.logAs(this);
        }
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
     * (advertise mode ports: a port per broker id) or its TLS server name names one (mode sni);
     * empty on the bootstrap listener or name and in the
     * modes where every broker shares the one advertised address. Routes whose answer depends on
     * which broker the client asked (per-broker listings, broker config resources, log dirs)
     * consult it first.
     */
    public OptionalInt addressedBroker() {
        return addressedBroker;
    }

    /**
     * The virtual cluster whose own TLS server names the connection came in by (advertise mode
     * sni, the virtual cluster's sniHostSuffix), known from its handshake on: the listener serves it
     * that virtual cluster's path. Empty for the shared names and in the other modes.
     */
    public Optional<String> addressedCluster() {
        return addressedCluster;
    }

    /** The name of the virtual cluster the connection was placed in; empty before, or without virtual clusters. */
    public Optional<String> virtualCluster() {
        return virtualCluster;
    }

    /**
     * Places the connection in the virtual cluster {@code name}, once: the tenant policy decides
     * at the connection's first request it reads, and every later policy reads the same answer.
     *
     * @throws IllegalStateException when it was placed in another already
     */
    public void placeIn(String name) {
        if (virtualCluster.isPresent() && !virtualCluster.get().equals(name)) {
            throw new IllegalStateException("connection " + id() + " is in virtual cluster '" + virtualCluster.get()
                    + "' already, not '" + name + "'");
        }
        virtualCluster = Optional.of(name);
    }

    /**
     * Who the client is: {@link KafkaPrincipal#ANONYMOUS} until a security layer (a verified TLS
     * client certificate, a SASL exchange) says otherwise. Read on the event loop.
     */
    public KafkaPrincipal principal() {
        return principal;
    }

    /**
     * Called by a security layer that admits the connection only once the client has
     * authenticated (SASL): until it calls {@link #admitted}, the connection's first requests do not
     * stop its unauthenticated timeout.
     */
    public void admitOnAuthentication() {
        admitsOnAuthentication = true;
    }

    /** Whether only {@link #admitted} (not a first request) stops the unauthenticated timeout. */
    boolean admitsOnAuthentication() {
        return admitsOnAuthentication;
    }

    /** The client authenticated: its unauthenticated timeout stops. Call on the connection's event loop. */
    public void admitted() {
        onAdmitted.run();
    }

    /** What {@link #admitted} does: set once, by the connection handler. */
    void onAdmitted(Runnable action) {
        this.onAdmitted = action;
    }

    /** The client proved it is {@code principal}. Call on the connection's event loop. */
    public void authenticatedAs(KafkaPrincipal principal) {
        this.principal = Objects.requireNonNull(principal, "principal");
    }

    /**
     * The client's address: the source address of the connection's PROXY protocol header when the
     * listener reads them and it had one, else the socket's peer. Log lines, connection caps and ACL
     * host rules use it.
     */
    public SocketAddress clientAddress() {
        return clientAddress;
    }

    /**
     * The socket's remote address, whatever a PROXY protocol header said. The checks for the
     * proxy's own connections (its readiness probe) use this one, which a client cannot forge.
     */
    public SocketAddress peerAddress() {
        return peerAddress;
    }

    /** The connection's short id, given when it was accepted: the {@value #CONN} field of its log lines. */
    public String id() {
        return id;
    }

    /** The client id of the client's latest request header (null until one names it). */
    public String clientId() {
        return clientId;
    }

    /** A request header named {@code clientId}: later log lines carry it. Call on the event loop. */
    public void clientIdSeen(String clientId) {
        if (clientId != null && !clientId.isEmpty()) {
            this.clientId = clientId;
        }
    }

    @Override
    public LoggingEventBuilder addTo(LoggingEventBuilder event) {
        // A disabled level hands out the no-op builder: skip formatting the address and principal.
        if (event instanceof NOPLoggingEventBuilder) {
            return event;
        }
        event.addKeyValue(CONN, id).addKeyValue(CLIENT, String.valueOf(clientAddress));
        if (clientId != null) {
            event.addKeyValue(CLIENT_ID, clientId);
        }
        return event.addKeyValue(PRINCIPAL, principal.toString());
    }

    /** A DEBUG line about this connection, carrying its fields. */
    public LoggingEventBuilder atDebug(Logger logger) {
        return addTo(logger.atDebug());
    }

    /** An INFO line about this connection, carrying its fields. */
    public LoggingEventBuilder atInfo(Logger logger) {
        return addTo(logger.atInfo());
    }

    /** A WARN line about this connection, carrying its fields. */
    public LoggingEventBuilder atWarn(Logger logger) {
        return addTo(logger.atWarn());
    }

    /** The client for log lines: its address, and its principal once it has authenticated. */
    public String describeClient() {
        return KafkaPrincipal.ANONYMOUS.equals(principal) ? String.valueOf(clientAddress)
                : clientAddress + " (" + principal + ")";
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
     * <p>Valid while {@link RequestHandler#handle} runs for that request, or a step of its handling
     * resumed later through {@link #handling()}, on the event loop; a call at any other time has no
     * request to extend and is ignored.
     */
    public void expectHeldFor(long extraMillis) {
        if (holding == null) {
            atDebug(LOGGER).log("Ignoring expectHeldFor({}) outside a request's handling (client {})", extraMillis,
                    clientAddress);
            return;
        }
        holding.heldFor(extraMillis);
    }

    /**
     * The request being handled now, so that a handler that goes on with it after {@link
     * RequestHandler#handle} returned (a policy that decides later, then the route) runs that step
     * in {@link Handling#resume}: a hold the route names there still counts for the request.
     * Outside a request's handling the handle resumes nothing, and holds named in it are ignored.
     */
    public Handling handling() {
        return new Handling(holding);
    }

    /** One request's handling, to go on with later on the event loop ({@link #handling()}). */
    public final class Handling {
        private final Hold hold;

        private Handling(Hold hold) {
            this.hold = hold;
        }

        /** Runs {@code step} (on the event loop) as part of the request's handling. */
        public <T> T resume(Supplier<T> step) {
            Hold outer = holding;
            holding = hold;
            try {
                return step.get();
            } finally {
                holding = outer;
            }
        }
    }

    /** How a hold named for one request reaches it: its deadline moves back. */
    interface Hold {
        void heldFor(long extraMillis);
    }

    /** The connection is about to call {@link RequestHandler#handle} for the request {@code hold} is for. */
    void beginRequest(Hold hold) {
        holding = hold;
    }

    /**
     * Stops reading from the client for {@code millis} from now, as a broker mutes the channel of
     * a client over its quota: what it has sent already is answered, nothing more is read until
     * then. A throttle in force that ends later is kept. Call on the event loop.
     */
    public void throttle(long millis) {
        if (millis <= 0 || closed) {
            return;
        }
        long until = loop.ticker().nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        if (until - throttledUntilNanos > 0) {
            throttledUntilNanos = until;
            onThrottle.run();
        }
    }

    /**
     * Counts {@code nanos} of the event loop spent on this connection: handling a request it sent,
     * or an answer from one of its broker channels. Call on the event loop.
     */
    public void loopTimeUsed(long nanos) {
        loopNanos += nanos;
    }

    /**
     * The loop time counted since the last call, which a request-time quota charges to the client.
     * The first call starts the measuring, of the connection's requests and of its broker
     * channels' answers.
     */
    public long takeLoopTime() {
        if (!metersLoopTime) {
            metersLoopTime = true;
            if (backends != null) {
                backends.meterLoopTimeTo(this::loopTimeUsed);
            }
        }
        long taken = loopNanos;
        loopNanos = 0;
        return taken;
    }

    /** Whether the client's requests' loop time is measured ({@link #takeLoopTime} was called). */
    boolean metersLoopTime() {
        return metersLoopTime;
    }

    /** How long, in nanoseconds of the loop's clock, the client stays throttled; 0 or less when it is not. */
    public long throttleLeftNanos() {
        if (throttledUntilNanos == 0) {
            return 0;
        }
        long left = throttledUntilNanos - loop.ticker().nanoTime();
        if (left <= 0) {
            throttledUntilNanos = 0; // over: the read gate's later looks need no clock
        }
        return left;
    }

    void onThrottle(Runnable step) {
        onThrottle = step;
    }

    /** That call returned. */
    void endRequest() {
        holding = null;
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
                atWarn(LOGGER).log("A close step of client {} failed: {}", clientAddress, e.toString());
            }
        }
    }
}
