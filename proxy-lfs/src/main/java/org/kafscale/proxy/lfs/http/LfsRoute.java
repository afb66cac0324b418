package org.kafscale.proxy.lfs.http;

/**
 * One endpoint (or family of endpoints) of the LFS HTTP API.
 *
 * <p>The {@link LfsRouter} handles what every {@code /lfs/*} route shares before it calls
 * {@link #handle}: CORS (OPTIONS answered with 204), the request id, the API key and the S3
 * health check, in that order (spec §4.2). The route checks the method itself, because the spec
 * answers a wrong method with 405 on some paths and 404 on others.
 *
 * <p>Routes are asked in order; the first whose {@link #matches} is true gets the request.
 */
public interface LfsRoute {

    /** Whether this route serves {@code path} (the request path without its query string). */
    boolean matches(String path);

    /**
     * Serves one request. Called on the connection's event loop: anything that blocks runs on
     * another executor. Exactly one response must eventually be sent through the exchange; an
     * exception thrown here or a failed stage passed to {@link LfsExchange#fail} becomes the
     * JSON error (an {@link LfsException} keeps its status and code; anything else is a 500).
     */
    void handle(LfsExchange exchange);

    /**
     * Refuses a method the route does not serve, by throwing an {@link LfsException}. Called
     * before the API key and S3 health checks, as the spec orders them (405 comes first on
     * {@code /lfs/produce}, {@code /lfs/download} and {@code POST /lfs/uploads}). The default
     * accepts every method and leaves the check to {@link #handle}.
     */
    default void checkMethod(io.netty.handler.codec.http.HttpMethod method) {
    }

    /**
     * Whether the shared checks (API key, S3 health) apply. Only the documentation routes
     * ({@code /swagger}, {@code /api/openapi.yaml}) are public.
     */
    default boolean protectedRoute() {
        return true;
    }
}
