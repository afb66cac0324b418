package org.kafscale.proxy.lfs.http;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.netty.buffer.ByteBuf;
import org.kafscale.proxy.lfs.Async;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A request body as a Reactive Streams publisher, which is what the S3 SDK reads a streamed body
 * from (a part of {@code /lfs/uploads}, or a whole {@code /lfs/produce} object of known length).
 * The body is read from the client only once the SDK subscribes, and reading pauses while more
 * than {@link #HIGH_WATER} bytes wait for the SDK's demand, so a body never sits in the heap
 * whole; the TCP window slows the client instead.
 *
 * <p>Each Netty chunk is copied into a heap buffer (Netty releases its buffer when
 * {@link #onChunk} returns). All state is touched on the connection's event loop only.
 */
public final class ExchangeBodyPublisher implements Publisher<ByteBuffer>, BodySink {

    public static final int HIGH_WATER = 512 * 1024;
    static final int LOW_WATER = 128 * 1024;

    private final LfsExchange exchange;
    private final Function<Throwable, LfsException> brokenBody;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
    private Subscriber<? super ByteBuffer> subscriber;
    private long demand;
    private long queued;
    private boolean paused;
    private boolean ended;
    private boolean finished;
    /** Set while {@link #drain} runs: a request() from inside onNext must not call onNext re-entrantly. */
    private boolean draining;

    /**
     * @param exchange the request whose body this is
     * @param brokenBody the error the subscriber gets when the body breaks off (client gone, timeout)
     */
    public ExchangeBodyPublisher(LfsExchange exchange, Function<Throwable, LfsException> brokenBody) {
        this.exchange = exchange;
        this.brokenBody = brokenBody;
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuffer> s) {
        if (!subscribed.compareAndSet(false, true)) {
            ReadOnce.refuse(s);
            return;
        }
        onLoop(() -> {
            subscriber = s;
            s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                    onLoop(() -> {
                        demand = n <= 0 || demand + n < 0 ? Long.MAX_VALUE : demand + n;
                        drain();
                    });
                }

                @Override
                public void cancel() {
                    onLoop(() -> {
                        finished = true;
                        queue.clear();
                        queued = 0;
                        // The rest of the body is read and dropped, so the connection stays usable.
                        if (paused) {
                            paused = false;
                            exchange.resumeBody();
                        }
                    });
                }
            });
            exchange.streamBody(this);
        });
    }

    @Override
    public void onChunk(ByteBuf chunk) {
        if (finished) {
            return;
        }
        ByteBuffer copy = ByteBuffer.allocate(chunk.readableBytes());
        chunk.getBytes(chunk.readerIndex(), copy);
        copy.flip();
        queue.add(copy);
        queued += copy.remaining();
        if (!paused && queued > HIGH_WATER) {
            paused = true;
            exchange.pauseBody();
        }
        drain();
    }

    @Override
    public void onEnd() {
        ended = true;
        drain();
    }

    @Override
    public void onAbort(Throwable cause) {
        if (finished) {
            return;
        }
        finished = true;
        queue.clear();
        subscriber.onError(brokenBody.apply(cause));
    }

    private void drain() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            while (!finished && demand > 0 && !queue.isEmpty()) {
                ByteBuffer next = queue.poll();
                queued -= next.remaining();
                demand--;
                subscriber.onNext(next);
            }
        } finally {
            draining = false;
        }
        if (!finished && ended && queue.isEmpty()) {
            finished = true;
            subscriber.onComplete();
        }
        if (paused && queued < LOW_WATER && !finished) {
            paused = false;
            exchange.resumeBody();
        }
    }

    private void onLoop(Runnable task) {
        Async.onLoop(exchange.eventLoop(), task);
    }
}
