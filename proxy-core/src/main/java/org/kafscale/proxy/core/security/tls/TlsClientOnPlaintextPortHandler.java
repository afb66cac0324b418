package org.kafscale.proxy.core.security.tls;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;

/**
 * First on a plaintext Kafka port: looks at a connection's first two bytes. A TLS record starts
 * with content type 22 (handshake) and major version 3; a Kafka request starts with its 4-byte
 * size, which would then be over 369 MB, more than any frame the proxy accepts. So those two bytes
 * mean a TLS client on a plaintext port: one line says exactly that and the connection closes,
 * instead of a frame-size error that sends the operator looking in the wrong place. Any other
 * start removes this handler, handing on what it read untouched.
 */
public final class TlsClientOnPlaintextPortHandler extends ByteToMessageDecoder {
    private static final byte HANDSHAKE_RECORD = 0x16;
    private static final byte TLS_MAJOR_VERSION = 0x03;

    private final TlsLogs logs;
    private boolean refused;

    public TlsClientOnPlaintextPortHandler(TlsLogs logs) {
        this.logs = logs;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < 2) {
            return;
        }
        if (in.getByte(in.readerIndex()) == HANDSHAKE_RECORD && in.getByte(in.readerIndex() + 1) == TLS_MAJOR_VERSION) {
            logs.tlsOnPlaintextPort.warn("A TLS client {} connected to plaintext Kafka port {}: closing (the port "
                    + "does not speak TLS: give the client security.protocol=PLAINTEXT, or turn TLS on with "
                    + "KAFSCALE_PROXY_TLS_ENABLED)", ClientAddress.of(ctx.channel()), ctx.channel().localAddress());
            refused = true;
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        ctx.pipeline().remove(this);
    }
}
