package org.kafscale.proxy.core.proxyprotocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.kafscale.proxy.core.logging.RateLimitedLog;

/**
 * Decides, once per connection, who the client is: the source of its PROXY protocol header, the
 * socket's peer (a v2 {@code LOCAL} header, a load balancer's own health check; or no header where
 * one is optional), or nobody (a header missing where it is required, malformed, or not whole in
 * time: the connection is closed with one log line and counted). Follows {@link ProxyHeaderDetector}
 * (and the decoder that takes its place), before everything else of the listener.
 *
 * <p>Until it has decided, the rest of the pipeline has not seen the connection: this handler
 * holds back {@code channelActive}, swallows read completions and user events (a handler that
 * was never active must not be asked to drain), and closes on an exception (the decoder's, for a
 * malformed header). A user event {@code closesUndecided} accepts (the listener's drain) closes
 * the connection. Once decided it admits the connection by the client's address (per-address
 * limits, a drain under way: {@link Admission}), tells the rest it is active, and steps out; bytes
 * that came with the header follow it down the pipeline.
 */
public final class ProxyProtocolGate extends ChannelInboundHandlerAdapter {
    /** What the listener does with a decided connection. */
    public interface Admission {
        /**
         * The connection comes from {@code client}: admit it, or close it (and say so in its own
         * log line and counter).
         *
         * @return whether it is admitted
         */
        boolean admit(Channel channel, SocketAddress client);

        /** A connection was closed for its header: missing where required, malformed, or late. */
        void refused();
    }

    private final ProxyProtocolMode mode;
    private final String setting;
    private final long headerTimeoutMillis;
    private final Admission admission;
    private final Predicate<Object> closesUndecided;
    private final RateLimitedLog refusals;
    /** Set once: by the header's decision, a refusal, a close or a drain. Nothing is decided twice. */
    private boolean decided;
    /** Decided and admitted: what still reaches this handler goes on down the pipeline. */
    private boolean admitted;
    private boolean activeHeld;
    private ScheduledFuture<?> deadline;

    /**
     * @param mode {@link ProxyProtocolMode#OPTIONAL} or {@link ProxyProtocolMode#REQUIRED}
     * @param setting the setting that chose the mode, named in the refusal lines
     * @param headerTimeoutMillis how long the header may take to arrive whole
     * @param closesUndecided the user events that close a connection not yet decided
     * @param refusals the listener's rate-limited refusal log
     */
    public ProxyProtocolGate(ProxyProtocolMode mode, String setting, long headerTimeoutMillis, Admission admission,
                             Predicate<Object> closesUndecided, RateLimitedLog refusals) {
        if (mode == ProxyProtocolMode.OFF) {
            throw new IllegalArgumentException("a listener without PROXY protocol has no gate");
        }
        this.mode = mode;
        this.setting = setting;
        this.headerTimeoutMillis = headerTimeoutMillis;
        this.admission = admission;
        this.closesUndecided = closesUndecided;
        this.refusals = refusals;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (decided) {
            ctx.fireChannelActive();
            return;
        }
        activeHeld = true;
        deadline = ctx.executor().schedule(() -> refuse(ctx, "no whole PROXY protocol header within "
                + headerTimeoutMillis + " ms"), headerTimeoutMillis, TimeUnit.MILLISECONDS);
        readOn(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (admitted) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (decided) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HAProxyMessage header) {
            SocketAddress client;
            try {
                client = sourceOf(header, ctx.channel());
            } finally {
                header.release();
            }
            decide(ctx, client);
            return;
        }
        if (msg instanceof ByteBuf bytes && mode == ProxyProtocolMode.OPTIONAL) {
            // No header: the connection's first bytes are its own, and the client is the socket's peer.
            if (decide(ctx, ctx.channel().remoteAddress())) {
                ctx.fireChannelRead(bytes);
            } else {
                bytes.release();
            }
            return;
        }
        ReferenceCountUtil.release(msg);
        refuse(ctx, "the connection does not start with a PROXY protocol header");
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (admitted) {
            ctx.fireChannelReadComplete();
        } else if (!decided) {
            readOn(ctx);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (admitted) {
            ctx.fireUserEventTriggered(event);
            return;
        }
        if (!decided && closesUndecided.test(event)) {
            decided = true;
            cancelDeadline();
            ctx.close();
        }
        ReferenceCountUtil.release(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (admitted) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        if (cause instanceof DecoderException) {
            // The decoder closes the channel itself before its exception gets here: decide anyway,
            // so the refusal is logged and counted whatever state the channel is in.
            refuse(ctx, "malformed PROXY protocol header (" + cause.getMessage() + ")");
            return;
        }
        // The socket failed (a reset) before a header came: nothing to refuse, nobody to tell.
        decided = true;
        cancelDeadline();
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (admitted) {
            ctx.fireChannelInactive();
            return;
        }
        // Closed before anything was decided (the client left): the rest never saw it active, so
        // it is not told it is inactive either.
        decided = true;
        cancelDeadline();
    }

    /** Decides on {@code client}; true once the connection is admitted and the rest of the pipeline knows it. */
    private boolean decide(ChannelHandlerContext ctx, SocketAddress client) {
        decided = true;
        cancelDeadline();
        ClientAddress.set(ctx.channel(), client);
        if (!admission.admit(ctx.channel(), client)) {
            return false;
        }
        admitted = true;
        ctx.pipeline().remove(this);
        if (activeHeld) {
            ctx.fireChannelActive();
        }
        return true;
    }

    private void refuse(ChannelHandlerContext ctx, String reason) {
        if (decided) {
            return;
        }
        decided = true;
        cancelDeadline();
        refusals.warn("Closing connection from {} on {}: {} ({}={})", ctx.channel().remoteAddress(),
                ctx.channel().localAddress(), reason, setting, mode.settingValue());
        admission.refused();
        ctx.close();
    }

    /** With auto-read off (the LFS listener), the header is read here, since nothing after this asks yet. */
    private static void readOn(ChannelHandlerContext ctx) {
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    /**
     * The client a header names: its source for a proxied TCP or UDP connection over IPv4 or IPv6;
     * the socket's peer for a {@code LOCAL} header (the load balancer's own connection) or a
     * source the proxy cannot use (UNKNOWN, a Unix socket).
     */
    static SocketAddress sourceOf(HAProxyMessage header, Channel channel) {
        if (header.command() != HAProxyCommand.PROXY || header.sourceAddress() == null) {
            return channel.remoteAddress();
        }
        return switch (header.proxiedProtocol()) {
            case TCP4, TCP6, UDP4, UDP6 -> {
                // A literal, never resolved: the decoder has checked it is an address of its family.
                InetAddress source = NetUtil.createInetAddressFromIpAddressString(header.sourceAddress());
                yield source == null ? channel.remoteAddress() : new InetSocketAddress(source, header.sourcePort());
            }
            default -> channel.remoteAddress();
        };
    }
}
