package org.kafscale.proxy.lfs.s3;

import java.io.IOException;
import software.amazon.awssdk.core.ResponseInputStream;

/**
 * Gives up on an S3 response body the proxy no longer wants.
 *
 * <p>The SDK's Netty client (2.57) leaks the buffer it holds for a body that is aborted or closed
 * before its first read: the last HTTP content waits in its body publisher with no demand and is
 * never released. Once one byte has been read the subscription has asked for data, and an abort
 * releases everything. So this reads one byte first, then aborts: the connection is still
 * dropped, not drained. {@code AbandonedBodiesIT} shows the leak when the first read is left out.
 */
public final class UnreadBodies {
    private UnreadBodies() {
    }

    /** Blocking (at most until the first bytes of the body arrive): call it off the event loop. */
    public static void abandon(ResponseInputStream<?> body) {
        try {
            body.read();
        } catch (IOException | RuntimeException e) {
            // The body failed on its own; the abort below still releases what the SDK holds.
        }
        body.abort();
    }
}
