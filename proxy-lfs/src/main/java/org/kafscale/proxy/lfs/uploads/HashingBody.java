package org.kafscale.proxy.lfs.uploads;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * A part's body on its way to S3, hashed as it passes: the part's own SHA-256 (to recognise a
 * retry) and, for a new part, the session's running digests.
 *
 * <p>It can be read once. Were the SDK to retry by reading it again, the running digests would
 * see the bytes twice; a second subscriber therefore gets an error instead.
 */
final class HashingBody implements AsyncRequestBody {

    private static final int SCRATCH = 16 * 1024;

    private final Publisher<ByteBuffer> source;
    private final long length;
    private final SessionDigests running;
    private final MessageDigest partSha256 = sha256();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private byte[] scratch;
    private long seen;

    /**
     * @param running the session's digests to continue, or null when the bytes only need
     *     recognising (a retried part)
     */
    HashingBody(Publisher<ByteBuffer> source, long length, SessionDigests running) {
        this.source = source;
        this.length = length;
        this.running = running;
    }

    @Override
    public Optional<Long> contentLength() {
        return Optional.of(length);
    }

    /** Bytes that passed so far. */
    long seen() {
        return seen;
    }

    /** Hex SHA-256 of the bytes that passed; call once, after the body ended. */
    String partSha256() {
        return HexFormat.of().formatHex(partSha256.digest());
    }

    /** Reads the whole body without sending it anywhere (a retry of a recorded part). */
    CompletableFuture<Void> drain() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        subscribe(new Subscriber<>() {
            @Override
            public void onSubscribe(Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer buffer) {
                // Already hashed on the way through.
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }

            @Override
            public void onComplete() {
                done.complete(null);
            }
        });
        return done;
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
                hash(buffer.duplicate());
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

    private void hash(ByteBuffer buffer) {
        seen += buffer.remaining();
        if (buffer.hasArray()) {
            update(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            return;
        }
        if (scratch == null) {
            scratch = new byte[SCRATCH];
        }
        while (buffer.hasRemaining()) {
            int n = Math.min(scratch.length, buffer.remaining());
            buffer.get(scratch, 0, n);
            update(scratch, 0, n);
        }
    }

    private void update(byte[] bytes, int offset, int count) {
        partSha256.update(bytes, offset, count);
        if (running != null) {
            running.update(bytes, offset, count);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
