package org.kafscale.proxy.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.ConnectAttempts;
import org.kafscale.proxy.core.hooks.ProduceRewriter;
import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.local.AdvertiseMode;
import org.kafscale.proxy.core.local.AdvertisedListener;
import org.kafscale.proxy.core.local.BrokerPorts;
import org.kafscale.proxy.core.server.ConnectionListener;
import org.kafscale.proxy.core.server.KafkaProxyServer;
import org.kafscale.proxy.core.server.ListenerLimits;
import org.kafscale.proxy.core.server.ListenerSettings;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.server.RequestHandlers;
import org.kafscale.proxy.core.testing.RawKafkaConnection;
import org.kafscale.proxy.core.testing.ScriptedBroker;
import org.kafscale.proxy.core.testing.StubTopology;
import org.kafscale.proxy.testkit.FreePorts;
import org.kafscale.proxy.routing.fetch.ReadAheadSettings;

/**
 * The routing of proxy-fetch behind a real listener, with scripted brokers behind it: proxy-core's
 * {@link KafkaProxyServer} on loopback whose connections each get {@code new Routing(...).newRouter}
 * (no dispatcher: every request goes to routing), a {@link StubTopology} naming the brokers the
 * test starts with {@link #broker}, and clients that speak Kafka ({@link RawKafkaConnection}).
 *
 * <p>It records what routing tells its {@link RoutingObserver} (fan-outs and retries), and checks
 * that every reply completes on its connection's event loop; {@link #close} fails the test if one
 * did not. The proxy starts with the first {@link #connect}, after the test has named its brokers
 * (and, with {@link #observeAlso} or {@link #rewriteWith}, its observer and rewriter).
 */
public final class RoutingHarness implements AutoCloseable {
    /** Longer than any client read waits, so a broker's silence is never ended by this timeout in a test. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;

    /** A request's first round went to {@code brokers} brokers. */
    public record FanOut(ApiKeys api, int brokers) {
    }

    /** Part of a request was sent again. */
    public record Retry(ApiKeys api, RoutingObserver.RetryCause cause) {
    }

    private final StubTopology topology = StubTopology.of();
    private final List<ScriptedBroker> brokers = new ArrayList<>();
    private final List<RawKafkaConnection> clients = new ArrayList<>();
    private final List<FanOut> fanOuts = new CopyOnWriteArrayList<>();
    private final List<Retry> retries = new CopyOnWriteArrayList<>();
    private final List<String> offLoopReplies = new CopyOnWriteArrayList<>();
    private final List<String> routingFailures = new CopyOnWriteArrayList<>();
    private RoutingObserver alsoObserve = RoutingObserver.NONE;
    private ProduceRewriter rewriter = ProduceRewriter.NONE;
    private BrokerPorts brokerPorts = BrokerPorts.NONE;
    private ReadAheadSettings readAhead = ReadAheadSettings.OFF;
    private UnaryOperator<RequestHandler> aroundRouter = UnaryOperator.identity();
    private final AtomicLong readAheadHeld = new AtomicLong();
    private final List<RoutingObserver.ReadAheadOutcome> readAheads = new CopyOnWriteArrayList<>();
    private EventLoopGroup workers;
    private KafkaProxyServer server;

    /** Starts a scripted broker with this node id and adds it to the topology. */
    public ScriptedBroker broker(int id) {
        ScriptedBroker broker = ScriptedBroker.start(id);
        brokers.add(broker);
        topology.withBroker(broker.endpoint());
        return broker;
    }

    public StubTopology topology() {
        return topology;
    }

    /** Routing tells {@code observer} too, after the harness has recorded what it was told. */
    public RoutingHarness observeAlso(RoutingObserver observer) {
        this.alsoObserve = observer;
        return this;
    }

    /** Routing asks {@code rewriter} before splitting each Produce. */
    public RoutingHarness rewriteWith(ProduceRewriter rewriter) {
        this.rewriter = rewriter;
        return this;
    }

    /**
     * Advertise mode ports: the proxy also listens on a port per broker id (ids below 16), and
     * {@link #connectToBrokerPort} opens a connection that addresses one broker.
     */
    public RoutingHarness withBrokerPorts() {
        this.brokerPorts = new BrokerPorts(FreePorts.block(16), 16);
        return this;
    }

    /** A new client connection on broker {@code id}'s own port (needs {@link #withBrokerPorts}). */
    public RawKafkaConnection connectToBrokerPort(int id) {
        connect();
        server.followBrokers(topology.snapshot().brokerIds());
        try {
            RawKafkaConnection client = new RawKafkaConnection(server.brokerPortAddresses().get(id).getPort());
            clients.add(client);
            return client;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Each connection's router is reached through {@code around} (a stage in front of routing, such as authorization). */
    public RoutingHarness aroundRouter(UnaryOperator<RequestHandler> around) {
        this.aroundRouter = around;
        return this;
    }

    /** Split Fetches are read ahead with these settings (off unless asked). */
    public RoutingHarness readAhead(ReadAheadSettings settings) {
        this.readAhead = settings;
        return this;
    }

    /** The process-wide read-ahead bytes held, as routing last reported them. */
    public long readAheadHeldBytes() {
        return readAheadHeld.get();
    }

    /** What became of each read-ahead, in order. */
    public List<RoutingObserver.ReadAheadOutcome> readAheadOutcomes() {
        return List.copyOf(readAheads);
    }

    /** A new client connection to the proxy (started on the first call). */
    public RawKafkaConnection connect() {
        try {
            RawKafkaConnection client = new RawKafkaConnection(port());
            clients.add(client);
            return client;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The proxy's port, for tests that write bytes no Kafka client would (started on the first
     * call). Opens no connection: a fuzz target asks once per input, and a connection held per
     * call ran the fuzzing JVM out of file descriptors after ~19,000 inputs.
     */
    public int port() {
        if (server == null) {
            try {
                start();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return server.localAddress().getPort();
    }

    /**
     * Returns and forgets what routing did that no request should make it do: throw from
     * {@code handle}, or fail its reply future (a client sees either as a bare close).
     */
    public List<String> drainRoutingFailures() {
        List<String> failures = List.copyOf(routingFailures);
        routingFailures.removeAll(failures);
        return failures;
    }

    public List<FanOut> fanOuts() {
        return List.copyOf(fanOuts);
    }

    public List<Retry> retries() {
        return List.copyOf(retries);
    }

    private void start() throws InterruptedException {
        AdvertisedListener advertised = brokerPorts.count() == 0
                ? new AdvertisedListener("proxy.test", 9092, AdvertiseMode.BROKERS)
                : new AdvertisedListener("proxy.test", 9092, AdvertiseMode.PORTS, brokerPorts);
        Routing routing = new Routing(topology, advertised,
                REQUEST_TIMEOUT.toMillis(), ConnectAttempts.ONCE, new RecordingObserver(), rewriter, readAhead);
        RequestHandlers handlers = connection -> onLoopChecked(aroundRouter.apply(routing.newRouter(connection)));
        ListenerSettings settings = new ListenerSettings(new InetSocketAddress("127.0.0.1", 0), MAX_FRAME_BYTES, 100,
                REQUEST_TIMEOUT, Duration.ofSeconds(5), 1, ListenerLimits.DEFAULTS, brokerPorts);
        workers = NettyTransport.newEventLoopGroup(1, "routing-test");
        server = KafkaProxyServer.start(settings, workers, handlers,
                new BackendConnector(MAX_FRAME_BYTES, settings.connectTimeout()), ConnectionListener.NONE);
    }

    /** The router, with each reply checked to complete on the connection's event loop. */
    private RequestHandler onLoopChecked(RequestHandler router) {
        return (context, request) -> {
            String describe = request.describe();
            Future<Reply> reply;
            try {
                reply = router.handle(context, request);
            } catch (RuntimeException e) {
                routingFailures.add(describe + " threw " + e);
                throw e;
            }
            reply.addListener(f -> {
                if (!context.loop().inEventLoop()) {
                    offLoopReplies.add(describe + " completed on " + Thread.currentThread().getName());
                }
                if (!f.isSuccess()) {
                    routingFailures.add(describe + " failed: " + f.cause());
                }
            });
            return reply;
        };
    }

    /** Stops clients, proxy and brokers; fails if a reply completed off its connection's event loop. */
    @Override
    public void close() throws IOException {
        for (RawKafkaConnection client : clients) {
            client.close();
        }
        if (server != null) {
            server.close();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        brokers.forEach(ScriptedBroker::close);
        assertEquals(List.of(), offLoopReplies, "replies that completed off their connection's event loop");
    }

    private final class RecordingObserver implements RoutingObserver {
        @Override
        public void fannedOut(ApiKeys api, int brokerCount) {
            fanOuts.add(new FanOut(api, brokerCount));
            alsoObserve.fannedOut(api, brokerCount);
        }

        @Override
        public void retried(ApiKeys api, RetryCause cause) {
            retries.add(new Retry(api, cause));
            alsoObserve.retried(api, cause);
        }

        @Override
        public void readAheadHeld(long deltaBytes) {
            readAheadHeld.addAndGet(deltaBytes);
            alsoObserve.readAheadHeld(deltaBytes);
        }

        @Override
        public void readAhead(ReadAheadOutcome outcome) {
            readAheads.add(outcome);
            alsoObserve.readAhead(outcome);
        }
    }
}
