package org.kafscale.proxy.lfs.uploads;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.envelope.Envelope;
import org.reactivestreams.Publisher;

/**
 * The multipart upload API without HTTP: init, part, complete, cancel, and the expiry sweep, over
 * a shared {@link UploadSessionStore}. Every result is a future and nothing blocks, so routes call
 * it straight from the event loop. Failures are {@link org.kafscale.proxy.lfs.http.LfsException}s
 * with the spec's codes, or a {@link SessionStoreException} (see {@link #answerFor}).
 */
public final class MultipartUploads {

    private final UploadServices services;
    private final UploadEnder ender;
    private final UploadStarter starter;
    private final PartReceiver parts;
    private final UploadCompleter completer;

    public MultipartUploads(UploadServices services) {
        this.services = services;
        this.ender = new UploadEnder(services);
        LiveSessions sessions = new LiveSessions(services, ender);
        this.starter = new UploadStarter(services, ender);
        this.parts = new PartReceiver(services, sessions);
        this.completer = new UploadCompleter(services, sessions, ender);
    }

    public UploadSettings settings() {
        return services.settings();
    }

    public CompletableFuture<InitResponse> init(InitRequest request, String requestId, String clientIp,
                                                Optional<String> principal) {
        return starter.start(request, requestId, clientIp, principal);
    }

    /** See {@link PartReceiver#receive}. */
    public CompletableFuture<PartReceipt> putPart(String id, int partNumber, long contentLength,
                                                  Publisher<ByteBuffer> body, String requestId,
                                                  Optional<String> principal) {
        return parts.receive(id, partNumber, contentLength, body, requestId, principal);
    }

    /** Completes the upload and produces the envelope, which is the answer to the client. */
    public CompletableFuture<Envelope> complete(String id, CompleteRequest request, String requestId,
                                                Optional<String> principal) {
        return completer.complete(id, request, requestId, principal);
    }

    /** {@code DELETE}: aborts the S3 upload (errors ignored) and forgets the session. */
    public CompletableFuture<Void> cancel(String id) {
        return services.store().find(id).thenCompose(found -> found
                .map(ender::cancel)
                .orElseGet(() -> CompletableFuture.failedFuture(UploadErrors.notFound(id))));
    }

    /** Ends every expired session; safe to run on several replicas at once. Completes when done. */
    public CompletableFuture<Integer> sweepExpired() {
        return services.store().all().thenCompose(all -> {
            List<CompletableFuture<Void>> ended = all.stream()
                    .filter(stored -> stored.session().expiredAt(services.clock().instant()))
                    .map(ender::endExpired)
                    .toList();
            return CompletableFuture.allOf(ended.toArray(CompletableFuture[]::new)).thenApply(v -> ended.size());
        });
    }

    /** The failure to send to the client for a failed future of this class. */
    public static Throwable answerFor(Throwable failure) {
        return UploadErrors.translate(failure);
    }
}
