package org.kafscale.proxy.lfs.resolve;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.kafscale.proxy.lfs.Async;
import org.kafscale.proxy.lfs.envelope.Envelope;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Reads an envelope's payload from S3 into memory and checks it against the envelope before
 * anyone sees it: S3's length first, then every byte through SHA-256, reading at most one byte
 * more than the envelope's size, so a larger object is noticed without reading it all. The read
 * and the hashing run on the LFS blocking executor, never on an event loop.
 */
final class PayloadReads {
    private static final int BUFFER = 64 * 1024;

    private final S3AsyncClient s3;
    private final Executor blocking;
    private final ResolutionMetrics metrics;

    PayloadReads(S3AsyncClient s3, Executor blocking, ResolutionMetrics metrics) {
        this.s3 = s3;
        this.blocking = blocking;
        this.metrics = metrics;
    }

    /** The verified payload, or a failure with its {@link ResolveFailure}. */
    CompletableFuture<byte[]> read(Envelope envelope) {
        long started = System.nanoTime();
        return s3.getObject(b -> b.bucket(envelope.bucket()).key(envelope.key()),
                        AsyncResponseTransformer.<GetObjectResponse>toBlockingInputStream())
                .handle((stream, error) -> {
                    if (error != null) {
                        metrics.s3Get(System.nanoTime() - started);
                        throw failure(envelope, error);
                    }
                    return stream;
                })
                .thenCompose(stream -> {
                    try {
                        return CompletableFuture.supplyAsync(() -> verified(envelope, stream, started), blocking);
                    } catch (RejectedExecutionException busy) {
                        stream.abort();
                        throw new ResolveFailure(ResolveFailure.Reason.BUSY, "no blocking thread free");
                    }
                });
    }

    private byte[] verified(Envelope envelope, ResponseInputStream<GetObjectResponse> stream, long started) {
        try (stream) {
            Long length = stream.response().contentLength();
            if (length != null && length != envelope.size()) {
                stream.abort();
                throw new ResolveFailure(ResolveFailure.Reason.SIZE, "object " + envelope.key() + " holds " + length
                        + " bytes, the envelope says " + envelope.size());
            }
            if (envelope.size() > Integer.MAX_VALUE - 64) {
                stream.abort();
                throw new ResolveFailure(ResolveFailure.Reason.SIZE, "object " + envelope.key() + " of "
                        + envelope.size() + " bytes is larger than a Kafka record can be");
            }
            byte[] payload = new byte[(int) envelope.size()];
            MessageDigest sha = sha256();
            int total = readFully(stream, payload);
            sha.update(payload, 0, total);
            if (total < payload.length || stream.read() >= 0) {
                stream.abort();
                throw new ResolveFailure(ResolveFailure.Reason.SIZE, "object " + envelope.key()
                        + " is not the envelope's " + envelope.size() + " bytes");
            }
            String digest = HexFormat.of().formatHex(sha.digest());
            if (!digest.equalsIgnoreCase(envelope.sha256())) {
                throw new ResolveFailure(ResolveFailure.Reason.SHA256, "object " + envelope.key() + " has SHA-256 "
                        + digest + ", the envelope says " + envelope.sha256());
            }
            return payload;
        } catch (IOException e) {
            throw new ResolveFailure(ResolveFailure.Reason.S3_UNAVAILABLE, "reading object " + envelope.key()
                    + " failed: " + e);
        } finally {
            metrics.s3Get(System.nanoTime() - started);
        }
    }

    private static int readFully(InputStream in, byte[] into) throws IOException {
        int total = 0;
        while (total < into.length) {
            int n = in.read(into, total, Math.min(BUFFER, into.length - total));
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    private static ResolveFailure failure(Envelope envelope, Throwable error) {
        Throwable cause = Async.unwrap(error);
        if (cause instanceof ResolveFailure known) {
            return known;
        }
        if (cause instanceof NoSuchKeyException) {
            return new ResolveFailure(ResolveFailure.Reason.MISSING, "no object " + envelope.key() + " in bucket "
                    + envelope.bucket());
        }
        return new ResolveFailure(ResolveFailure.Reason.S3_UNAVAILABLE, "S3 get of " + envelope.key() + " failed: "
                + cause);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
