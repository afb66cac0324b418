package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.Set;

/**
 * The CORS answer of {@code /lfs/*} (spec §4.2), for the origins an operator allows. The default
 * allows none: the API answers with no {@code Access-Control-*} header, so a web page on another
 * origin cannot read an answer, and its preflight is refused (403), so it cannot send the
 * API's custom headers ({@code X-Kafka-Topic}, {@code X-API-Key}) at all. The original answered
 * {@code *} to every origin; without an API key that let any page a user opened produce to any
 * topic through the user's browser. Same-origin pages (Swagger UI on this listener) need no CORS.
 */
public final class Cors {
    static final String ALLOW_METHODS = "POST, PUT, DELETE, OPTIONS";
    static final String ALLOW_HEADERS = "Content-Type, Content-Range, X-Kafka-Topic, X-Kafka-Key, X-Kafka-Partition, "
            + "X-LFS-Checksum, X-LFS-Checksum-Alg, X-LFS-Size, X-LFS-Mode, X-Request-ID, X-API-Key, Authorization";
    static final String EXPOSE_HEADERS = "X-Request-ID, X-Kafscale-LFS-Checksum, X-Kafscale-LFS-Content-Length";
    /** Allows every origin, as the original did; only for an API that needs a key anyway. */
    public static final String ANY = "*";
    /** No cross-origin access. */
    public static final Cors NONE = new Cors(List.of());

    private final Set<String> allowed;

    private Cors(List<String> origins) {
        this.allowed = Set.copyOf(origins);
    }

    /** Allows {@code origins} (exact {@code scheme://host[:port]} values, or {@link #ANY}). */
    public static Cors allowing(List<String> origins) {
        return origins.isEmpty() ? NONE : new Cors(origins);
    }

    /** Whether a request from {@code origin} (null: not a cross-origin browser request) may be answered with CORS. */
    boolean allows(String origin) {
        return origin != null && (allowed.contains(ANY) || allowed.contains(origin));
    }

    /** Adds the CORS headers for a request from {@code origin}, if that origin is allowed. */
    void add(HttpHeaders headers, String origin) {
        if (!allows(origin)) {
            return;
        }
        headers.set("Access-Control-Allow-Origin", allowed.contains(ANY) ? ANY : origin);
        if (!allowed.contains(ANY)) {
            headers.set("Vary", "Origin");
        }
        headers.set("Access-Control-Allow-Methods", ALLOW_METHODS);
        headers.set("Access-Control-Allow-Headers", ALLOW_HEADERS);
        headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    }
}
