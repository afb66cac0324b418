package org.kafscale.proxy.lfs.uploads;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.s3.ObservedBody;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import software.amazon.awssdk.core.async.AsyncRequestBody;

/**
 * A part's body on its way to S3, hashed as it passes: the part's own SHA-256 (to recognise a
 * retry) and, for a new part, the session's running digests. Read once (see {@link ObservedBody}).
 */
final class HashingBody implements AsyncRequestBody {

    private final MessageDigest partSha256 = sha256();
    private final SessionDigests running;
    private final ObservedBody body;

    /**
     * @param running the session's digests to continue, or null when the bytes only need
     *     recognising (a retried part)
     */
    HashingBody(Publisher<ByteBuffer> source, long length, SessionDigests running) {
        this.running = running;
        this.body = new ObservedBody(source, length, this::update);
    }

    @Override
    public Optional<Long> contentLength() {
        return body.contentLength();
    }

    /** Bytes that passed so far. */
    long seen() {
        return body.seen();
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
        body.subscribe(downstream);
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
