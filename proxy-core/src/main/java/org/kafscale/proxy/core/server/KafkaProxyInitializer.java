package org.kafscale.proxy.core.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.net.SocketAddress;
import java.util.OptionalInt;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.RequestHeaderDecoder;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.proxyprotocol.ProxyHeaderDetector;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolGate;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.core.security.tls.ListenerTls;
import org.kafscale.proxy.core.security.tls.TlsClientOnPlaintextPortHandler;
import org.kafscale.proxy.core.security.tls.TlsLogs;
import org.kafscale.proxy.core.security.tls.TlsSessionHandler;
import org.kafscale.proxy.core.server.sni.SniRouter;

/**
 * The client-side pipeline, top to bottom: flushes gathered into one per batch, frames in, size
 * prefix out (the only writer of sizes), request headers, then the connection handler that
 * dispatches and orders answers. On a TLS listener the pipeline starts with the TLS handler (made
 * from the certificate current when the connection is accepted, so a reloaded certificate serves
 * new connections only; in advertise mode sni, made once the {@link SniRouter} has read the
 * client's server name) and the handler that turns its handshake into the client's principal; on a
 * plaintext listener it starts with the check that turns a TLS client into one clear log line.
 *
 * <p>Answers written while the client's read batch is being handled are flushed once, when the
 * batch ends: a flush is a system call, and a client pipelining small requests would otherwise pay
 * one per answer. Outside a read (answers that come from broker reads) a flush goes out at once:
 * deferring it to a later event-loop round is the riskier setting (a deferred flush waits for the
 * end of whatever read the pipeline believes is under way), for a small saving.
 *
 * <p>With PROXY protocol on, the pipeline starts before all that (before TLS, which the header
 * precedes on the wire) with the header's detector and the gate that decides who the client is
 * and admits it by that address; the rest sees the connection only once it is admitted.
 *
 * <p>One per listener (the bootstrap listener, and in advertise mode ports each broker's port),
 * so the rate-limited lines of its connections are limited together (a thousand clients failing
 * at once log one line per interval, not a thousand).
 */
public final class KafkaProxyInitializer extends ChannelInitializer<SocketChannel> {
    /** The setting named in the lines of connections refused for their PROXY protocol header. */
    static final String PROXY_PROTOCOL_SETTING = "KAFSCALE_PROXY_ACCEPT_PROXY_PROTOCOL";
    /** The refusal counter's label for them. */
    static final String PROXY_HEADER_REFUSAL = "proxy_header";

    private final ListenerSettings settings;
    private final ListenerParts parts;
    private final ClientConnections clients;
    private final ChannelGroup accepted;
    private final RateLimitedLog badHeaders = RequestHeaderDecoder.rejectionLog();
    private final TlsLogs tlsLogs = new TlsLogs();
    private final RateLimitedLog sniRefusals = SniRouter.refusalLog();
    /** The listener's TLS, or null on a plaintext listener. */
    private final ListenerTls tls;
    private final RateLimitedLog proxyHeaderRefusals = RateLimitedLog.every10Seconds(ConnectionLogs.LOGGER);
    private final ProxyProtocolGate.Admission proxyAdmission;

    /**
     * @param addressedBroker the broker id the listener's port stands for, if any
     * @param accepted where the listener's own connections are kept (so they can be closed with
     *     it), or null
     * @param tls the listener's TLS, or null for plaintext
     */
    KafkaProxyInitializer(ListenerSettings settings, RequestHandlers handlers, BackendConnector connector,
                          ConnectionListener listener, ClientConnections clients,
                          ConnectionBudgets budgets, OptionalInt addressedBroker, ChannelGroup accepted,
                          ListenerTls tls) {
        this.tls = tls;
        this.accepted = accepted;
        this.settings = settings;
        this.parts = new ListenerParts(handlers, connector, settings.maxInFlightPerConnection(),
                settings.requestTimeout().toMillis(), clients.counting(listener), new ConnectionLogs(), budgets,
                addressedBroker);
        this.clients = clients;
        this.proxyAdmission = new ProxyProtocolGate.Admission() {
            @Override
            public boolean admit(Channel channel, SocketAddress client) {
                return clients.admitFrom(channel, client);
            }

            @Override
            public void refused() {
                listener.refused(PROXY_HEADER_REFUSAL);
            }
        };
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (!clients.accept(ch)) {
            return;
        }
        if (settings.proxyProtocol() == ProxyProtocolMode.OFF) {
            if (!clients.admitFrom(ch, ch.remoteAddress())) {
                return;
            }
        } else {
            // The client's address is the header's: the gate admits it by that address once read.
            ch.pipeline()
                    .addLast("proxyHeader", new ProxyHeaderDetector())
                    .addLast("proxyGate", new ProxyProtocolGate(settings.proxyProtocol(), PROXY_PROTOCOL_SETTING,
                            parts.budgets().timeouts().frameRead().toMillis(), proxyAdmission,
                            event -> event == ClientConnectionHandler.DRAIN, proxyHeaderRefusals));
        }
        if (accepted != null) {
            accepted.add(ch);
        }
        if (tls != null) {
            ch.pipeline()
                    .addLast(SniRouter.TLS_HANDLER, tlsHandler(ch))
                    .addLast("tlsSession", new TlsSessionHandler(tls.principals(), tlsLogs,
                            tls.settings().handshakeTimeout().toMillis()));
        } else {
            ch.pipeline().addLast("tlsOnPlaintextPort", new TlsClientOnPlaintextPortHandler(tlsLogs));
        }
        ch.pipeline()
                .addLast("flushes", new FlushConsolidationHandler(
                        FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, false))
                .addLast("frameDecoder", new KafkaFrameDecoder(settings.maxFrameBytes(), "client"))
                .addLast("framePrepender", new LengthFieldPrepender(4))
                .addLast("headerDecoder", new RequestHeaderDecoder(badHeaders))
                .addLast("connection", new ClientConnectionHandler(parts));
    }

    /**
     * The TLS handler, made now from the current certificate; in sni mode the router that reads
     * the client's server name first and makes it then.
     */
    private ChannelHandler tlsHandler(SocketChannel ch) {
        SniHosts sniHosts = settings.sniHosts();
        if (sniHosts == SniHosts.NONE) {
            return tls.newHandler(ch.alloc());
        }
        return new SniRouter(sniHosts, tls::newHandler, tls.settings().handshakeTimeout().toMillis(), sniRefusals,
                parts.listener());
    }
}
