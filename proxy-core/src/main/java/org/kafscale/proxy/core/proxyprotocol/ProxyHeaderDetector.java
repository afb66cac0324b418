package org.kafscale.proxy.core.proxyprotocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.ProtocolDetectionResult;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import java.util.List;

/**
 * First in the pipeline of a listener that reads PROXY protocol headers: looks at the first bytes
 * (the 12 of the v2 signature, or v1's {@code PROXY }) and, when they start a header, puts Netty's
 * {@link HAProxyMessageDecoder} in its place to decode it; otherwise it steps out. Either way the
 * bytes it held go on unchanged to what follows ({@link ProxyProtocolGate}, which decides).
 */
public final class ProxyHeaderDetector extends ByteToMessageDecoder {
    /** The name of the decoder that replaces this handler when a header is detected. */
    static final String DECODER_NAME = "proxyHeaderDecoder";

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        ProtocolDetectionResult<HAProxyProtocolVersion> detected = HAProxyMessageDecoder.detectProtocol(in);
        switch (detected.state()) {
            case NEEDS_MORE_DATA -> {
            }
            case DETECTED -> ctx.pipeline().replace(this, DECODER_NAME, new HAProxyMessageDecoder());
            case INVALID -> ctx.pipeline().remove(this);
        }
    }
}
