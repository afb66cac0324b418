package org.kafscale.proxy.lfs.uploads;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.lfs.publish.EnvelopePublisher;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import org.kafscale.proxy.lfs.s3.ObjectKeys;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;
import org.reactivestreams.Publisher;

import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * The multipart upload API without HTTP: init, part, complete, cancel, and the expiry sweep, over
 * a shared {@link UploadSessionStore}. Every result is a future and nothing blocks, so routes call
 * it straight from the event loop. Failures are {@link org.kafscale.proxy.lfs.http.LfsException}s
 * with the spec's codes, or a {@link SessionStoreException} (see {@link #answerFor}).
 */
public final class MultipartUploads {

    private final UploadSessionStore store;
    private final LiveSessions sessions;
    private final UploadEnder ender;
    private final UploadStarter starter;
    private final PartReceiver parts;
    private final UploadCompleter completer;
    private final UploadSettings settings;
    private final Clock clock;

    public MultipartUploads(UploadSessionStore store, S3AsyncClient s3, ObjectKeys keys, EnvelopePublisher publisher,
                            ObjectJanitor janitor, UploadSettings settings, LfsMetrics metrics, LfsTracker tracker,
                            TrackerEvents events, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.ender = new UploadEnder(store, s3, janitor);
        this.sessions = new LiveSessions(store, ender, clock);
        this.starter = new UploadStarter(store, s3, keys, publisher, ender, settings, metrics, tracker, events, clock);
        this.parts = new PartReceiver(store, sessions, s3, metrics);
        this.completer = new UploadCompleter(store, sessions, ender, s3, publisher, settings, metrics, tracker,
                events, clock);
    }

    public UploadSettings settings() {
        return settings;
    }

    public CompletableFuture<InitResponse> init(InitRequest request, String requestId, String clientIp) {
        return starter.start(request, requestId, clientIp);
    }

    /** See {@link PartReceiver#receive}. */
    public CompletableFuture<PartReceipt> putPart(String id, int partNumber, long contentLength, Publisher<ByteBuffer> body) {
        return parts.receive(id, partNumber, contentLength, body);
    }

    /** Completes the upload and produces the envelope, which is the answer to the client. */
    public CompletableFuture<Envelope> complete(String id, List<ListedPart> listed, String requestId) {
        return completer.complete(id, listed, requestId);
    }

    /** {@code DELETE}: aborts the S3 upload (errors ignored) and forgets the session. */
    public CompletableFuture<Void> cancel(String id) {
        return store.find(id).thenCompose(found -> found
                .map(ender::cancel)
                .orElseGet(() -> CompletableFuture.failedFuture(UploadErrors.notFound(id))));
    }

    /** Ends every expired session; safe to run on several replicas at once. Completes when done. */
    public CompletableFuture<Integer> sweepExpired() {
        return store.all().thenCompose(all -> {
            List<CompletableFuture<Void>> ended = all.stream()
                    .filter(stored -> stored.session().expiredAt(clock.instant()))
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
