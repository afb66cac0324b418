package org.kafscale.proxy.core.security.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import javax.net.ssl.SSLException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.proxyprotocol.ClientAddress;
import org.kafscale.proxy.core.security.ClientAuthenticated;

/**
 * Sits right after the {@link SslHandler} of a connection on a TLS port until its handshake
 * ends. On success it maps the client's certificate to a principal and fires
 * {@link ClientAuthenticated} up the pipeline, then steps out of the way. On failure it logs one
 * line that says what happened — a plaintext Kafka client on the TLS port, a handshake that timed
 * out, an untrusted or missing client certificate — and closes; the SslHandler's own exception
 * that follows is not logged again.
 */
public final class TlsSessionHandler extends ChannelInboundHandlerAdapter {
    private final CertificatePrincipals principals;
    private final TlsLogs logs;
    private final long handshakeTimeoutMillis;
    private boolean failed;

    public TlsSessionHandler(CertificatePrincipals principals, TlsLogs logs, long handshakeTimeoutMillis) {
        this.principals = principals;
        this.logs = logs;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (!(event instanceof SslHandshakeCompletionEvent completion)) {
            ctx.fireUserEventTriggered(event);
            return;
        }
        if (completion.isSuccess()) {
            authenticated(ctx);
        } else {
            handshakeFailed(ctx, completion.cause());
        }
    }

    private void authenticated(ChannelHandlerContext ctx) {
        KafkaPrincipal principal;
        try {
            principal = principals.of(ctx.pipeline().get(SslHandler.class).engine().getSession());
        } catch (RuntimeException e) {
            failed = true;
            logs.handshakeFailures.warn("Closing TLS connection from client {} on Kafka port {}: {}",
                    ClientAddress.of(ctx.channel()), ctx.channel().localAddress(), e.getMessage());
            ctx.close();
            return;
        }
        ctx.pipeline().remove(this);
        ctx.fireUserEventTriggered(new ClientAuthenticated(principal));
    }

    private void handshakeFailed(ChannelHandlerContext ctx, Throwable cause) {
        failed = true;
        if (cause instanceof NotSslRecordException) {
            logs.plaintextOnTlsPort.warn("A plaintext (non-TLS) client {} connected to TLS Kafka port {}: closing "
                    + "(the client needs security.protocol=SSL, or SASL_SSL)", ClientAddress.of(ctx.channel()),
                    ctx.channel().localAddress());
        } else if (cause instanceof SslHandshakeTimeoutException) {
            logs.handshakeFailures.warn("TLS handshake with client {} on Kafka port {} did not finish within {} ms: "
                    + "closing", ClientAddress.of(ctx.channel()), ctx.channel().localAddress(), handshakeTimeoutMillis);
        } else {
            logs.handshakeFailures.warn("TLS handshake with client {} on Kafka port {} failed: {}; closing",
                    ClientAddress.of(ctx.channel()), ctx.channel().localAddress(),
                    TlsFailureText.withMeaning(String.valueOf(cause.getMessage())));
        }
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof SSLException && failed) {
            // The handshake failure this repeats was logged above.
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }
}
