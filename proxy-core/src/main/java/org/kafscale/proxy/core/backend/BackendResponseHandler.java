package org.kafscale.proxy.core.backend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.function.LongConsumer;
import org.kafscale.proxy.core.security.tls.TlsFailureText;

/** Hands each answer frame from a broker, and each change of the channel's writability, to its {@link BackendChannel}. */
final class BackendResponseHandler extends ChannelInboundHandlerAdapter {
    private BackendChannel backend;

    void bind(BackendChannel backendChannel) {
        this.backend = backendChannel;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        // What the answer's merge, policies and write to the client take of the loop, measured only
        // for a request-time quota.
        LongConsumer loopTime = backend.loopTime();
        long start = loopTime == null ? 0 : System.nanoTime();
        backend.onResponse((ByteBuf) msg);
        if (loopTime != null) {
            loopTime.accept(System.nanoTime() - start);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        backend.onWritabilityChanged();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        backend.onClosed();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        backend.fail("I/O error: " + TlsFailureText.of(cause), BackendException.Cause.CONNECTION_CLOSED);
    }
}
