package org.kafscale.proxy.core.proxyprotocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;

/**
 * PROXY protocol headers the proxy writes, with Netty's encoder. Above all the v2 {@code LOCAL}
 * header the proxy's own connections to its listener start with when the
 * listener reads PROXY protocol (its readiness probe): a connection of the proxy's own, as a load
 * balancer's health check is, which keeps its socket's address. Without it a listener that
 * requires headers would close the probe, and readiness would fail.
 */
public final class ProxyHeaders {
    /** The LOCAL header's bytes, encoded once (it carries no address, so it never changes). */
    private static final byte[] LOCAL = encodeLocal();

    private ProxyHeaders() {
    }

    /**
     * Writes the LOCAL header on {@code channel}, just connected, ahead of everything else: from the
     * first handler's context, so no handler (TLS, the size prefixer) touches it, and before the
     * pipeline hears the channel is active, so it precedes a TLS ClientHello and any request.
     */
    public static void sendLocalFirst(Channel channel) {
        channel.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(LOCAL));
    }

    /** A copy of the LOCAL header's bytes. */
    static byte[] localBytes() {
        return LOCAL.clone();
    }

    private static byte[] encodeLocal() {
        return encode(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.LOCAL,
                HAProxyProxiedProtocol.UNKNOWN, null, null, 0, 0));
    }

    /** {@code header}'s bytes as Netty's encoder writes them (released once encoded). */
    public static byte[] encode(HAProxyMessage header) {
        EmbeddedChannel encoder = new EmbeddedChannel(HAProxyMessageEncoder.INSTANCE);
        try {
            encoder.writeOutbound(header);
            ByteBuf encoded = encoder.readOutbound();
            try {
                return ByteBufUtil.getBytes(encoded);
            } finally {
                encoded.release();
            }
        } finally {
            encoder.finishAndReleaseAll();
        }
    }
}
