package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Picks the route for a request and applies, in the spec's order, what every {@code /lfs/*}
 * route shares: the CORS preflight (204 for an allowed origin or none, 403 for another, before auth), the route's method check (405), the API
 * key (401 {@code unauthorized}) and the S3 health flag (503 {@code proxy_not_ready}). Unknown paths get Go's plain-text 404.
 */
public final class LfsRouter {
    private final List<LfsRoute> routes;
    private final ApiKeyCheck apiKey;
    private final Cors cors;
    private final BooleanSupplier s3Healthy;

    /** Allows no cross-origin access (see {@link Cors}). */
    public LfsRouter(List<LfsRoute> routes, ApiKeyCheck apiKey, BooleanSupplier s3Healthy) {
        this(routes, apiKey, Cors.NONE, s3Healthy);
    }

    public LfsRouter(List<LfsRoute> routes, ApiKeyCheck apiKey, Cors cors, BooleanSupplier s3Healthy) {
        this.routes = List.copyOf(routes);
        this.apiKey = apiKey;
        this.cors = cors;
        this.s3Healthy = s3Healthy;
    }

    Cors cors() {
        return cors;
    }

    void dispatch(NettyExchange exchange) {
        LfsRoute route = routes.stream().filter(r -> r.matches(exchange.path())).findFirst().orElse(null);
        if (route == null) {
            exchange.respondText(404, "404 page not found\n");
            return;
        }
        if (route.protectedRoute()) {
            if (HttpMethod.OPTIONS.equals(exchange.method())) {
                String origin = exchange.headers().get(HttpHeaderNames.ORIGIN);
                if (origin != null && !cors.allows(origin)) {
                    exchange.fail(new LfsException(403, "origin_not_allowed", "cross-origin requests from " + origin
                            + " are not allowed"));
                    return;
                }
                exchange.respondPreflight();
                return;
            }
            try {
                route.checkMethod(exchange.method());
            } catch (LfsException e) {
                exchange.fail(e);
                return;
            }
            if (!apiKey.accepts(exchange.headers())) {
                exchange.fail(new LfsException(401, "unauthorized", "missing or invalid API key"));
                return;
            }
            if (!s3Healthy.getAsBoolean()) {
                exchange.fail(new LfsException(503, "proxy_not_ready", "S3 is not reachable"));
                return;
            }
        }
        try {
            route.handle(exchange);
        } catch (RuntimeException e) {
            exchange.fail(e);
        }
    }
}
