package org.kafscale.proxy.lfs.s3;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.kafscale.proxy.lfs.checksum.PayloadDigests;
import org.kafscale.proxy.lfs.http.ExchangeBodyPublisher;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.LfsExchange;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Streams a request body of declared length into one {@code PutObject}, hashing it as it passes.
 *
 * <p>Why not always multipart ({@link StreamingUpload}): a multipart upload sends its parts one
 * after another, each waiting for S3's answer before the next one may start, and then asks S3 to
 * assemble them. Measured in the benchmark (docs/benchmarks.md), assembling 13 parts of a 64 MiB
 * payload took S3Proxy about 200 ms and the parts' round trips paused the client for another
 * 160 ms, so {@code /lfs/produce} ran at a third of a plain PUT. One streamed PUT has no parts to
 * wait for and nothing to assemble. Memory stays bounded: the body is read from the client only
 * as fast as the SDK takes it ({@link ExchangeBodyPublisher}).
 *
 * <p>What a single PUT gives up is the SDK's retry of a failed part (a streamed body cannot be
 * read twice): a failed PUT is answered 502 and the client sends the payload again. That is why
 * payloads above {@link #MAX_BYTES} (and bodies without a Content-Length) still go multipart,
 * where a failure costs one part; AWS likewise recommends multipart from about 100 MB.
 */
public final class StreamedPut {
    /** The largest payload sent as one PUT. */
    public static final long MAX_BYTES = 128L * 1024 * 1024;

    private StreamedPut() {
    }

    /** Whether a body of this declared length goes as one PUT. */
    public static boolean suits(OptionalLong contentLength) {
        return contentLength.isPresent() && contentLength.getAsLong() > 0 && contentLength.getAsLong() <= MAX_BYTES;
    }

    /**
     * Starts reading the exchange's body into the object {@code key}.
     *
     * @param length the declared body length (S3 needs it before the first byte)
     * @param caller where the S3 call starts, off the event loop (the SDK prepares the request there)
     * @return the payload's digests once the object is stored; an {@link LfsException} otherwise
     *     (400 {@code invalid_reader} when the body broke off, 502 {@code s3_upload_failed})
     */
    public static CompletableFuture<PayloadDigests.Result> store(S3AsyncClient s3, String bucket, String key,
                                                                 long length, LfsExchange exchange,
                                                                 PayloadDigests digests, Executor caller) {
        // A body stopped by the proxy (an LfsException) keeps its answer; one the client broke off is a 400.
        ExchangeBodyPublisher publisher = new ExchangeBodyPublisher(exchange, cause -> cause instanceof LfsException e
                ? e : new LfsException(400, "invalid_reader", "request body did not complete: " + cause, cause));
        // The digests are fed on the event loop (where the publisher hands bytes on) and finished there too.
        // The HTTP decoder ends the body after Content-Length bytes and S3 refuses a PUT that ends sooner.
        ObservedBody body = new ObservedBody(publisher, length, digests::update);
        return CompletableFuture.supplyAsync(() -> s3.putObject(b -> b.bucket(bucket).key(key).contentLength(length)
                                .overrideConfiguration(S3Clients.ONE_ATTEMPT),
                        body), caller)
                .thenCompose(put -> put)
                .handleAsync((response, error) -> {
                    if (error != null) {
                        throw S3Failures.asLfs(error);
                    }
                    return digests.finish();
                }, exchange.eventLoop());
    }
}
