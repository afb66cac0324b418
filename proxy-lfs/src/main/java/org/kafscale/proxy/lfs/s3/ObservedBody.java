package org.kafscale.proxy.lfs.s3;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kafscale.proxy.lfs.http.ReadOnce;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * A streamed request body of known length on its way to S3, shown to an observer (the digests)
 * as it passes, and counted.
 *
 * <p>It can be read once. Were the SDK to retry by reading it again, the digests would see the
 * bytes twice; a second subscriber therefore gets an error instead, and the request fails.
 */
public final class ObservedBody implements AsyncRequestBody {

    /** Sees every byte once, in order, on the thread that delivers it. */
    @FunctionalInterface
    public interface Observer {
        void update(byte[] bytes, int offset, int length);
    }

    private static final int SCRATCH = 16 * 1024;

    private final Publisher<ByteBuffer> source;
    private final long length;
    private final Observer observer;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private byte[] scratch;
    private long seen;

    public ObservedBody(Publisher<ByteBuffer> source, long length, Observer observer) {
        this.source = source;
        this.length = length;
        this.observer = observer;
    }

    @Override
    public Optional<Long> contentLength() {
        return Optional.of(length);
    }

    /** Bytes that passed so far. */
    public long seen() {
        return seen;
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuffer> downstream) {
        if (!subscribed.compareAndSet(false, true)) {
            ReadOnce.refuse(downstream);
            return;
        }
        source.subscribe(new Subscriber<ByteBuffer>() {
            @Override
            public void onSubscribe(Subscription subscription) {
                downstream.onSubscribe(subscription);
            }

            @Override
            public void onNext(ByteBuffer buffer) {
                observe(buffer.duplicate());
                downstream.onNext(buffer);
            }

            @Override
            public void onError(Throwable error) {
                downstream.onError(error);
            }

            @Override
            public void onComplete() {
                downstream.onComplete();
            }
        });
    }

    private void observe(ByteBuffer buffer) {
        seen += buffer.remaining();
        if (buffer.hasArray()) {
            observer.update(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            return;
        }
        if (scratch == null) {
            scratch = new byte[SCRATCH];
        }
        while (buffer.hasRemaining()) {
            int n = Math.min(scratch.length, buffer.remaining());
            buffer.get(scratch, 0, n);
            observer.update(scratch, 0, n);
        }
    }
}
