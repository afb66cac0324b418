package org.kafscale.proxy.lfs.http;

import io.netty.buffer.ByteBuf;

/**
 * Receives a request body as it arrives, on the connection's event loop. Reading from the client
 * stops while the exchange is {@linkplain LfsExchange#pauseBody() paused}, so a sink that writes
 * to a slower destination (S3) bounds memory by pausing until it caught up.
 */
public interface BodySink {

    /**
     * The next bytes of the body. The sink copies or retains what it keeps: the caller releases
     * {@code chunk} when this returns.
     */
    void onChunk(ByteBuf chunk);

    /** The whole body arrived. */
    void onEnd();

    /** The body will not complete: the client went away or sent a malformed request. */
    void onAbort(Throwable cause);
}
