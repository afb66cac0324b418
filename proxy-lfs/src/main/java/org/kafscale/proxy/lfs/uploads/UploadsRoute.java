package org.kafscale.proxy.lfs.uploads;

import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.http.LfsException;
import org.kafscale.proxy.lfs.http.ExchangeBodyPublisher;
import org.kafscale.proxy.lfs.http.LfsExchange;
import org.kafscale.proxy.lfs.http.LfsRoute;
import org.kafscale.proxy.lfs.limits.ConcurrencyGate;
import org.kafscale.proxy.lfs.limits.LfsLimits;
import org.kafscale.proxy.lfs.limits.PacedExchange;

/**
 * The HTTP face of {@link MultipartUploads}: {@code POST /lfs/uploads}, {@code PUT
 * /lfs/uploads/{id}/parts/{n}}, {@code POST /lfs/uploads/{id}/complete} and {@code DELETE
 * /lfs/uploads/{id}} (spec §4.4). A wrong method on init is 405; anywhere below it, 404
 * {@code not_found}, as in the original. A part holds an upload permit while it streams to S3 (past
 * the bound: 503 {@code busy} before its body is read), and its body must keep the minimum rate
 * ({@link PacedExchange}).
 */
final class UploadsRoute implements LfsRoute {

    /** An init or complete document is small; this only bounds a hostile one. */
    private static final int MAX_JSON_BYTES = 1024 * 1024;

    private final MultipartUploads uploads;
    private final ConcurrencyGate uploadGate;
    private final LfsLimits limits;

    UploadsRoute(MultipartUploads uploads, ConcurrencyGate uploadGate, LfsLimits limits) {
        this.uploads = uploads;
        this.uploadGate = uploadGate;
        this.limits = limits;
    }

    @Override
    public boolean matches(String path) {
        return UploadPath.covers(path);
    }

    @Override
    public void handle(LfsExchange exchange) {
        UploadPath path = UploadPath.parse(exchange.path());
        HttpMethod method = exchange.method();
        switch (path.kind()) {
            case INIT -> {
                if (!HttpMethod.POST.equals(method)) {
                    throw new LfsException(405, "method_not_allowed", "method not allowed");
                }
                init(exchange);
            }
            case PART -> {
                requireMethod(method, HttpMethod.PUT);
                checkId(path.uploadId());
                part(exchange, path);
            }
            case COMPLETE -> {
                requireMethod(method, HttpMethod.POST);
                checkId(path.uploadId());
                complete(exchange, path.uploadId());
            }
            case UPLOAD -> {
                requireMethod(method, HttpMethod.DELETE);
                checkId(path.uploadId());
                answer(exchange, uploads.cancel(path.uploadId()), v -> exchange.respondNoContent());
            }
            case UNKNOWN -> throw notFound();
        }
    }

    /** Ids are UUIDs this API issued; anything else cannot name an upload (and never reaches a store key). */
    private static void checkId(String id) {
        try {
            UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw UploadErrors.notFound(id);
        }
    }

    private void init(LfsExchange exchange) {
        answer(exchange, exchange.readBody(MAX_JSON_BYTES)
                        .thenApply(body -> InitRequest.parse(body, uploads.settings()))
                        .thenCompose(request -> uploads.init(request, exchange.requestId(), exchange.clientIp(),
                                exchange.principal())),
                response -> exchange.respondJson(200, response));
    }

    private void part(LfsExchange exchange, UploadPath path) {
        int partNumber = path.partNumber();
        if (partNumber < 1) {
            throw UploadErrors.invalidPart("invalid part number");
        }
        String length = exchange.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (length == null) {
            // S3 needs a part's length before its first byte; a chunked body would have to be spooled.
            throw UploadErrors.invalidPart("Content-Length required");
        }
        long contentLength;
        try {
            contentLength = Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            throw UploadErrors.invalidPart("invalid Content-Length");
        }
        ConcurrencyGate.Permit permit = uploadGate.acquire(exchange.clientIp());
        // A body the proxy stopped (too slow) keeps its answer; one the client broke off is invalid_part.
        ExchangeBodyPublisher body = new ExchangeBodyPublisher(PacedExchange.of(exchange, limits),
                cause -> cause instanceof LfsException e ? e : UploadErrors.partBroken(cause));
        CompletableFuture<PartReceipt> stored = uploads.putPart(path.uploadId(), partNumber, contentLength, body,
                        exchange.requestId(), exchange.principal())
                .whenComplete((receipt, error) -> permit.close());
        answer(exchange, stored, receipt -> exchange.respondJson(200, receipt));
    }

    private void complete(LfsExchange exchange, String id) {
        answer(exchange, exchange.readBody(MAX_JSON_BYTES)
                        .thenCompose(body -> uploads.complete(id, CompleteRequest.parse(body), exchange.requestId(),
                                exchange.principal())),
                envelope -> exchange.respondBytes(200, "application/json",
                        withNewline(EnvelopeCodec.encode(envelope))));
    }

    private static <T> void answer(LfsExchange exchange, CompletableFuture<T> outcome, Consumer<T> respond) {
        outcome.whenComplete((value, error) -> {
            if (error != null) {
                exchange.fail(MultipartUploads.answerFor(error));
            } else {
                respond.accept(value);
            }
        });
    }

    private static void requireMethod(HttpMethod actual, HttpMethod wanted) {
        if (!wanted.equals(actual)) {
            throw notFound();
        }
    }

    private static LfsException notFound() {
        return new LfsException(404, "not_found", "not found");
    }

    private static byte[] withNewline(byte[] json) {
        byte[] out = new byte[json.length + 1];
        System.arraycopy(json, 0, out, 0, json.length);
        out[json.length] = (byte) '\n';
        return out;
    }
}
