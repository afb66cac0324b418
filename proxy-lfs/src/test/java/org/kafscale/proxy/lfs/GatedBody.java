package org.kafscale.proxy.lfs;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.testkit.Eventually;

/**
 * A request body that stops after its first part until the test releases it, so a fault can be
 * injected in the middle of an upload. When the client asks for bytes beyond the first part, the
 * proxy has read most of it, which it only does after it connected to a broker: the upload is
 * under way.
 */
final class GatedBody extends InputStream {
    private final long firstPart;
    private final long total;
    private final CountDownLatch firstConsumed = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private long position;

    GatedBody(long firstPart, long total) {
        this.firstPart = firstPart;
        this.total = total;
    }

    HttpRequest.BodyPublisher publisher() {
        return HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(() -> this), total);
    }

    /** Waits until the first part went out and the client wants more. */
    void awaitFirstPartConsumed() {
        Eventually.await(Duration.ofSeconds(30), "the first part of the body to be read",
                () -> firstConsumed.getCount() == 0);
    }

    void release() {
        released.countDown();
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
        if (position == firstPart) {
            firstConsumed.countDown();
            try {
                if (!released.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the body");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (position >= total) {
            return -1;
        }
        long limit = position < firstPart ? firstPart : total;
        int n = (int) Math.min(length, limit - position);
        for (int i = 0; i < n; i++) {
            buffer[offset + i] = (byte) (position + i);
        }
        position += n;
        return n;
    }
}
