package org.kafscale.proxy.core.server.sni;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.kafscale.proxy.core.local.SniHosts;
import org.kafscale.proxy.core.logging.RateLimitedLog;
import org.kafscale.proxy.core.server.ConnectionListener;
import org.slf4j.LoggerFactory;

/**
 * The first handler of a connection in advertise mode sni: reads the server name of the client's
 * TLS ClientHello, records which broker it addresses ({@link #addressedBroker}) and, for a virtual
 * cluster's names, which virtual cluster ({@link #addressedCluster}), and puts the TLS
 * handler in its own place, which then answers the ClientHello it was handed. A name that is
 * neither the bootstrap's nor a broker's, a ClientHello without one, or none within the handshake
 * timeout, ends the connection with a TLS {@code unrecognized_name} alert, one (rate-limited) line
 * and {@code listener.refused("sni")}.
 *
 * <p>The handlers after this one learn of the connection only once it is routed: its
 * channelActive is held back until then, and its read-completes, events and close before then are
 * not passed on, since those handlers build their state when the connection becomes active.
 */
public final class SniRouter extends AbstractSniHandler<Optional<SniHosts.Target>> {
    /** The name the pipeline's TLS handler gets, in place of this one. */
    public static final String TLS_HANDLER = "tls";

    private static final AttributeKey<SniHosts.Target> TARGET = AttributeKey.valueOf(SniRouter.class, "target");
    /** A fatal TLS alert record, unrecognized_name (112): what the client's TLS stack reports. */
    private static final byte[] UNRECOGNIZED_NAME = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x70};

    private final SniHosts hosts;
    private final Function<ByteBufAllocator, SslHandler> tls;
    private final long timeoutMillis;
    private final RateLimitedLog refusals;
    private final ConnectionListener listener;
    private boolean active;
    private boolean routed;
    private boolean refused;
    private String serverName;
    private boolean helloSeen;
    private ScheduledFuture<?> timeout;

    /**
     * @param tls makes the listener's TLS handler (from the certificate current now)
     * @param timeoutMillis how long a client has to send its ClientHello (the TLS handshake timeout)
     * @param refusals the listener's line for refused names, shared by its connections
     * @param listener counts the refusal
     */
    public SniRouter(SniHosts hosts, Function<ByteBufAllocator, SslHandler> tls, long timeoutMillis,
                     RateLimitedLog refusals, ConnectionListener listener) {
        // No timeout of the base class: it would fire channelActive on, and time out only then.
        super(0L);
        this.hosts = hosts;
        this.tls = tls;
        this.timeoutMillis = timeoutMillis;
        this.refusals = refusals;
        this.listener = listener;
    }

    /** The line refused names are logged on, one per listener. */
    public static RateLimitedLog refusalLog() {
        return RateLimitedLog.every10Seconds(LoggerFactory.getLogger(SniRouter.class));
    }

    /** The broker the client's server name addresses; empty for the bootstrap, or before routing. */
    public static OptionalInt addressedBroker(Channel channel) {
        SniHosts.Target target = channel.attr(TARGET).get();
        return target == null ? OptionalInt.empty() : target.broker();
    }

    /**
     * The virtual cluster whose names (under its sniHostSuffix) the client's server name is one of;
     * empty for the shared names, or before routing.
     */
    public static Optional<String> addressedCluster(Channel channel) {
        SniHosts.Target target = channel.attr(TARGET).get();
        return target == null ? Optional.empty() : target.virtualCluster();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        active = true;
        timeout = ctx.executor().schedule(() -> refuse(ctx, "sent no TLS ClientHello within " + timeoutMillis + " ms"),
                timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected Future<Optional<SniHosts.Target>> lookup(ChannelHandlerContext ctx, ByteBuf clientHello)
            throws Exception {
        // Null when the first bytes are not a TLS ClientHello at all.
        helloSeen = clientHello != null;
        return super.lookup(ctx, clientHello);
    }

    @Override
    protected Future<Optional<SniHosts.Target>> lookup(ChannelHandlerContext ctx, String hostname) {
        serverName = hostname;
        return ctx.executor().newSucceededFuture(hosts.resolve(hostname));
    }

    // Not the base class's: it also fires an SniCompletionEvent, which would reach the handlers
    // after this one before they are active.
    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, Future<Optional<SniHosts.Target>> future) {
        onLookupComplete(ctx, serverName, future);
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, String hostname,
                                    Future<Optional<SniHosts.Target>> future) {
        if (refused) {
            return;
        }
        Optional<SniHosts.Target> target = future.getNow();
        if (target.isEmpty()) {
            refuse(ctx, !helloSeen ? "sent what is not a TLS ClientHello (a plaintext client?)"
                    : hostname == null ? "sent no server name (SNI); it must connect by name, to "
                    + hosts.describe()
                    : "asked for '" + hostname + "', which is not one of its names: " + hosts.describe());
            return;
        }
        cancelTimeout();
        routed = true;
        ctx.channel().attr(TARGET).set(target.get());
        // The ClientHello this handler has buffered goes on to the TLS handler as it is removed.
        ctx.pipeline().replace(this, TLS_HANDLER, tls.apply(ctx.alloc()));
        if (active) {
            ctx.pipeline().context(TLS_HANDLER).fireChannelActive();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (routed) {
            super.channelReadComplete(ctx);
        } else if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (routed) {
            ctx.fireUserEventTriggered(event);
        } else {
            // A drain (or a half-close) before the client said where it goes: nothing is in
            // flight and nothing can be answered, so the connection ends.
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelTimeout();
        if (routed) {
            super.channelInactive(ctx);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (routed) {
            ctx.fireExceptionCaught(cause);
        } else {
            refuse(ctx, "sent what is not a TLS ClientHello (" + cause.getClass().getSimpleName() + ")");
        }
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        if (refused || routed) {
            return;
        }
        refused = true;
        cancelTimeout();
        listener.refused("sni");
        refusals.warn("TLS connection from {} refused: it {}", ctx.channel().remoteAddress(), why);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(UNRECOGNIZED_NAME)).addListener(ChannelFutureListener.CLOSE);
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
