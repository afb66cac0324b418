package org.kafscale.proxy.lfs.http;

import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One HTTP request and its response, as a route sees it. Implemented by the Netty handler of the
 * LFS listener; every method may be called from any thread (response methods hop to the event
 * loop themselves).
 *
 * <p>The body is read either whole ({@link #readBody}, for small JSON documents) or as a stream
 * ({@link #streamBody}), at most once. Exactly one response is sent. A response sent before the
 * body was read to its end closes the connection after it, since the rest of the body would
 * otherwise be taken for the next request.
 */
public interface LfsExchange {

    HttpMethod method();

    /** The request path without its query string. */
    String path();

    HttpHeaders headers();

    /** {@code X-Request-ID} as sent (trimmed), or a generated UUID; echoed on every response. */
    String requestId();

    /**
     * The client's address: the peer's, unless the peer is a trusted proxy that names the client by
     * {@code X-Forwarded-For} or {@code X-Real-IP} ({@code ClientIp}; spec §4.13 believed any peer).
     */
    String clientIp();

    /**
     * Who sent the request: {@code User:<subject>} of the client certificate the LFS listener
     * verified (mTLS, {@code KAFSCALE_LFS_PROXY_HTTP_TLS_CLIENT_CA_FILE}), in RFC 2253 form; empty
     * for a request without one (the API key is shared and names no one).
     */
    default Optional<String> principal() {
        return Optional.empty();
    }

    /** The connection's event loop. */
    EventLoop eventLoop();

    /**
     * The whole body, once it arrived. Fails with 400 {@code invalid_request} when it is longer
     * than {@code maxBytes}.
     */
    CompletableFuture<byte[]> readBody(int maxBytes);

    /** Delivers the body to {@code sink} as it arrives. */
    void streamBody(BodySink sink);

    /** Stops reading from the client until {@link #resumeBody()}; the TCP window then throttles the sender. */
    void pauseBody();

    /** Reads from the client again. */
    void resumeBody();

    /** Answers with a JSON document (Jackson-serialised, then a newline). */
    void respondJson(int status, Object body);

    /** Answers with bytes as they are. */
    void respondBytes(int status, String contentType, byte[] body);

    /** Answers 204 with no body. */
    void respondNoContent();

    /**
     * Answers 200 with the content of {@code file}, sent without copying through the heap, with
     * {@code headers} added; {@code afterSend} runs once the file was sent or the send failed
     * (to delete a temporary file).
     */
    void respondFile(Path file, long length, String contentType, Map<String, String> headers, Runnable afterSend);

    /** Answers with the JSON error for {@code failure} (see {@link LfsRoute#handle}). */
    void fail(Throwable failure);

    /** Whether a response was already sent (or started). */
    boolean responded();
}
