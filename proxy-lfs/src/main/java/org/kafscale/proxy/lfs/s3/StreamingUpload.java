package org.kafscale.proxy.lfs.s3;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.checksum.PayloadDigests;
import org.kafscale.proxy.lfs.http.BodySink;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Streams one request body into one S3 object while computing its digests (spec §4.7): a body
 * that ends within the first part becomes one PutObject; anything longer becomes a multipart
 * upload of {@code partSize} parts. {@code /lfs/produce} uses it for bodies whose length is not
 * declared or is above {@link StreamedPut#MAX_BYTES}; smaller declared bodies go to
 * {@link StreamedPut}, which says why.
 *
 * <p>Memory is two part buffers whatever the payload size: one being filled from the socket, one
 * being uploaded. When both are busy, reading from the client pauses until the upload finished;
 * the TCP window then slows the client. The bytes are copied once, from Netty's buffer into the
 * part buffer, and hashed there.
 *
 * <p>Body callbacks arrive on the connection's event loop; S3 completions are moved back onto it,
 * so the state below has one thread.
 */
public final class StreamingUpload implements BodySink {
    private static final Logger LOGGER = LoggerFactory.getLogger(StreamingUpload.class);

    private final S3AsyncClient s3;
    private final Executor caller;
    private final String bucket;
    private final String key;
    private final long maxBytes;
    private final LfsExchange exchange;
    private final PayloadDigests digests;
    private final CompletableFuture<PayloadDigests.Result> result = new CompletableFuture<>();
    private final List<CompletedPart> parts = new ArrayList<>();

    private byte[] filling;
    private byte[] spare;
    private int filled;
    private long received;
    private final ArrayDeque<ByteBuf> parked = new ArrayDeque<>();
    private boolean fullWaiting;
    private boolean ended;
    private boolean failed;
    private boolean partInFlight;
    private CompletableFuture<String> uploadId;

    /**
     * @param s3 the client
     * @param bucket the bucket
     * @param key the object key
     * @param partSize bytes per part (at least 5 MiB)
     * @param maxBytes the largest payload accepted; more fails with 400 {@code payload_too_large}
     * @param exchange the request whose body this is (to pause and resume reading)
     * @param digests fed with every byte
     * @param caller where S3 calls start: the SDK signs a request (hashing a part over plain HTTP)
     *               on the calling thread, which must not be the event loop
     */
    public StreamingUpload(S3AsyncClient s3, String bucket, String key, int partSize, long maxBytes,
                           LfsExchange exchange, PayloadDigests digests, Executor caller) {
        this.s3 = s3;
        this.caller = caller;
        this.bucket = bucket;
        this.key = key;
        this.maxBytes = maxBytes;
        this.exchange = exchange;
        this.digests = digests;
        this.filling = new byte[partSize];
    }

    /** Completes with the payload's digests once the object is stored; fails with an {@link LfsException}. */
    public CompletableFuture<PayloadDigests.Result> result() {
        return result;
    }

    @Override
    public void onChunk(ByteBuf chunk) {
        if (failed) {
            return;
        }
        received += chunk.readableBytes();
        if (received > maxBytes) {
            fail(LfsException.badRequest("payload_too_large", "blob size " + received + " exceeds max " + maxBytes));
            return;
        }
        if (fullWaiting) {
            // The read that was under way when reading paused still delivers; hold it until a buffer frees.
            parked.add(chunk.retainedSlice());
            return;
        }
        consume(chunk);
    }

    /** Copies bytes into the part buffer; parks what does not fit while both buffers are busy. */
    private void consume(ByteBuf chunk) {
        while (chunk.isReadable()) {
            if (fullWaiting) {
                parked.add(chunk.readRetainedSlice(chunk.readableBytes()));
                return;
            }
            int n = Math.min(chunk.readableBytes(), filling.length - filled);
            chunk.readBytes(filling, filled, n);
            digests.update(filling, filled, n);
            filled += n;
            if (filled == filling.length) {
                partFull();
            }
        }
    }

    private void partFull() {
        if (!partInFlight) {
            startPart();
        } else {
            fullWaiting = true;
            exchange.pauseBody();
        }
    }

    private void startPart() {
        byte[] data = filling;
        int length = filled;
        filling = spare == null ? new byte[data.length] : spare;
        spare = null;
        filled = 0;
        int partNumber = parts.size() + 1;
        parts.add(null);
        if (uploadId == null) {
            uploadId = call(() -> s3.createMultipartUpload(b -> b.bucket(bucket).key(key))).thenApply(r -> r.uploadId());
        }
        partInFlight = true;
        CompletableFuture<Void> stored = uploadId.thenComposeAsync(id -> s3.uploadPart(b -> b.bucket(bucket).key(key)
                        .uploadId(id).partNumber(partNumber).contentLength((long) length),
                AsyncRequestBody.fromByteBufferUnsafe(ByteBuffer.wrap(data, 0, length))), caller)
                .thenAccept(r -> onLoop(() -> {
                    parts.set(partNumber - 1, CompletedPart.builder().partNumber(partNumber).eTag(r.eTag()).build());
                    spare = data;
                    partInFlight = false;
                    partDone();
                }));
        stored.exceptionally(e -> {
            onLoop(() -> fail(S3Failures.asLfs(e)));
            return null;
        });
    }

    private void partDone() {
        if (failed) {
            return;
        }
        if (fullWaiting) {
            fullWaiting = false;
            startPart();
            while (!fullWaiting && !parked.isEmpty()) {
                ByteBuf next = parked.poll();
                try {
                    consume(next);
                } finally {
                    next.release();
                }
            }
            if (fullWaiting) {
                return;
            }
            if (!ended) {
                exchange.resumeBody();
                return;
            }
        }
        if (ended && !partInFlight) {
            finishMultipart();
        }
    }

    @Override
    public void onEnd() {
        if (failed) {
            return;
        }
        ended = true;
        if (received == 0) {
            fail(LfsException.badRequest("empty_upload", "empty upload"));
            return;
        }
        if (uploadId == null && !fullWaiting) {
            byte[] data = filling;
            int length = filled;
            call(() -> s3.putObject(b -> b.bucket(bucket).key(key).contentLength((long) length),
                            AsyncRequestBody.fromByteBufferUnsafe(ByteBuffer.wrap(data, 0, length))))
                    .whenComplete((r, e) -> onLoop(() -> {
                        if (e != null) {
                            fail(S3Failures.asLfs(e));
                        } else {
                            result.complete(digests.finish());
                        }
                    }));
            return;
        }
        if (!partInFlight && !fullWaiting) {
            finishMultipart();
        }
        // Otherwise partDone() finishes once the part in flight is stored and the parked bytes are consumed.
    }

    private void finishMultipart() {
        if (filled > 0) {
            startPart();
            return; // partDone() calls back here with filled == 0
        }
        uploadId.thenComposeAsync(id -> s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id)
                        .multipartUpload(m -> m.parts(parts))), caller)
                .whenComplete((r, e) -> onLoop(() -> {
                    if (e != null) {
                        fail(S3Failures.asLfs(e));
                    } else {
                        result.complete(digests.finish());
                    }
                }));
    }

    @Override
    public void onAbort(Throwable cause) {
        // A body the proxy stopped (an LfsException: too slow) keeps its answer; one the client broke off is a 400.
        fail(cause instanceof LfsException e ? e
                : new LfsException(400, "invalid_reader", "request body did not complete: " + cause));
    }

    /** Stops the upload: a started multipart upload is aborted, so no part is left behind. */
    private void fail(Throwable error) {
        if (failed) {
            return;
        }
        failed = true;
        filling = null;
        spare = null;
        while (!parked.isEmpty()) {
            parked.poll().release();
        }
        if (uploadId != null) {
            uploadId.thenCompose(id -> s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id)))
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            LOGGER.warn("cannot abort the multipart upload of {}: {}", key, e.toString());
                        }
                    });
        }
        result.completeExceptionally(error);
    }

    private <T> CompletableFuture<T> call(java.util.function.Supplier<CompletableFuture<T>> request) {
        return CompletableFuture.supplyAsync(request, caller).thenCompose(f -> f);
    }

    private void onLoop(Runnable task) {
        Async.onLoop(exchange.eventLoop(), task);
    }
}
