package org.kafscale.proxy.core.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.security.tls.ListenerTls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka listener: accepts client connections and runs each on one event loop. In advertise
 * mode ports it also holds a listener per broker id ({@link #followBrokers}), beside this
 * bootstrap listener, with the same event loops, limits and budgets.
 */
public final class KafkaProxyServer implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaProxyServer.class);

    private final EventLoopGroup bossGroup;
    private final Channel serverChannel;
    private final ClientConnections clients;
    private final ConnectionBudgets budgets;
    private final BrokerPortListeners brokerPorts;
    /** TLS of every port of the listener, or null when it is plaintext. */
    private final ListenerTls tls;

    private KafkaProxyServer(EventLoopGroup bossGroup, Channel serverChannel, ClientConnections clients,
                             ConnectionBudgets budgets, BrokerPortListeners brokerPorts, ListenerTls tls) {
        this.tls = tls;
        this.bossGroup = bossGroup;
        this.serverChannel = serverChannel;
        this.clients = clients;
        this.budgets = budgets;
        this.brokerPorts = brokerPorts;
    }

    /**
     * Binds the listener.
     *
     * @param handlers makes each connection's request handler
     * @param workerGroup event loops for client connections and their broker channels (owned by the caller)
     * @throws org.kafscale.proxy.core.security.tls.TlsMaterialException if TLS is on and its files cannot be used
     */
    public static KafkaProxyServer start(ListenerSettings settings, EventLoopGroup workerGroup, RequestHandlers handlers,
                                         BackendConnector connector,
                                         ConnectionListener listener) throws InterruptedException {
        ListenerLimits limits = settings.limits();
        OptionalLong fdLimit = FileDescriptors.limit();
        int maxConnections = FileDescriptors.connectionLimit(limits.maxConnections(), limits.fdHeadroom(), fdLimit);
        LOGGER.info("Client connections limited to {} in total ({} configured; process file descriptor limit {}, "
                        + "{} kept free) and {} per client address", maxConnections, limits.maxConnections(),
                fdLimit.isPresent() ? fdLimit.getAsLong() : "unknown", limits.fdHeadroom(), limits.maxConnectionsPerIp());
        EventLoopGroup boss = NettyTransport.newEventLoopGroup(1, "kafka-accept");
        ClientConnections clients = new ClientConnections(maxConnections, limits.maxConnectionsPerIp(), listener);
        ConnectionBudgets budgets = new ConnectionBudgets(limits);
        int highWater = limits.unreadAnswerBytesPerConnection();
        ListenerTls tls = null;
        try {
            tls = settings.tls().map(ListenerTls::start).orElse(null);
            ListenerTls listenerTls = tls;
            ServerBootstrap template = new ServerBootstrap()
                    .group(boss, workerGroup)
                    .channel(NettyTransport.serverChannelClass(boss))
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOCATOR, FrameBuffers.allocator())
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(highWater / 2, highWater));
            Channel channel = template.clone()
                    .childHandler(new KafkaProxyInitializer(settings, handlers, connector, listener, clients, budgets,
                            OptionalInt.empty(), null, listenerTls))
                    .bind(settings.bindAddress()).sync().channel();
            LOGGER.info("Kafka listener bound to {} ({}, {}{})", channel.localAddress(), NettyTransport.describe(boss),
                    tls == null ? "plaintext" : "TLS", settings.proxyProtocol() == ProxyProtocolMode.OFF ? ""
                            : ", PROXY protocol " + settings.proxyProtocol().settingValue());
            BrokerPortListeners brokerPorts = new BrokerPortListeners(settings, template, (broker, accepted) ->
                    new KafkaProxyInitializer(settings, handlers, connector, listener, clients, budgets, broker, accepted,
                            listenerTls));
            return new KafkaProxyServer(boss, channel, clients, budgets, brokerPorts, tls);
        } catch (Exception e) {
            // Exception, not RuntimeException: a bind that fails throws the socket's IOException
            // undeclared, and the accept thread must not outlive it.
            if (tls != null) {
                tls.close();
            }
            boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** The listener's TLS, when it has TLS: what a client of the listener inside the proxy (the readiness probe) dials with. */
    public Optional<ListenerTls> tls() {
        return Optional.ofNullable(tls);
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * Advertise mode ports: opens a listener for each of these broker ids in the port range that
     * has none, and closes (draining its connections) the listener of each id no longer listed.
     * Does nothing without per-broker ports. Blocks while binding: never call it on an event loop.
     */
    public void followBrokers(Collection<Integer> brokerIds) {
        brokerPorts.follow(brokerIds);
    }

    /** The per-broker listeners open now, by broker id, with where each is bound. */
    public Map<Integer, InetSocketAddress> brokerPortAddresses() {
        return brokerPorts.addresses();
    }

    /** Client requests read and not yet settled, on every connection. */
    public int requestsInFlight() {
        return clients.requestsInFlight();
    }

    /** Bytes of request frames not yet complete, on every connection. */
    public long partialFrameBytes() {
        return budgets.partialFrames().total();
    }

    /** Bytes of answers written and not yet taken by their clients, on every connection. */
    public long unreadAnswerBytes() {
        return budgets.unreadAnswers().total();
    }

    /** Stops accepting connections; open connections stay with their event loops. */
    public void stopAccepting() {
        brokerPorts.stopAccepting();
        serverChannel.close().syncUninterruptibly();
    }

    /**
     * Graceful shutdown of the client side: stops accepting, lets every connection answer the
     * requests it has read (reading no more), and closes each once its last answer is flushed;
     * connections still busy after {@code timeout} are closed. Blocks: never call it on an event loop.
     *
     * @return whether every connection finished within the timeout
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        stopAccepting();
        return clients.drain(timeout);
    }

    /**
     * Drains the connections for which {@code affected} holds (on the bootstrap port and every
     * broker port), as {@link #drain} does one by one, without waiting and without stopping
     * accepting: a live reconfiguration's way to move exactly the clients it changes. Each test
     * runs on its connection's event loop.
     */
    public void drainWhere(Predicate<ConnectionContext> affected) {
        clients.drainWhere(affected);
    }

    /**
     * Live reconfiguration: connections accepted from now on (on every port of this listener) get
     * the frame read, idle and unauthenticated timeouts of {@code limits}; open connections keep
     * the ones they were accepted with. The other limits stay as bound at start.
     */
    public void applyTimeouts(ListenerLimits limits) {
        budgets.applyTimeouts(limits);
    }

    /** Stops at once: no more connections, and the open ones closed without waiting for answers. */
    @Override
    public void close() {
        stopAccepting();
        clients.closeAll();
        if (tls != null) {
            tls.close();
        }
        bossGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
