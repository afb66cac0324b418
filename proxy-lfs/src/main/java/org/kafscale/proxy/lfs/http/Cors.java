package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaders;

/** The CORS headers of every {@code /lfs/*} response (spec §4.2). */
final class Cors {
    static final String ALLOW_METHODS = "POST, PUT, DELETE, OPTIONS";
    static final String ALLOW_HEADERS = "Content-Type, Content-Range, X-Kafka-Topic, X-Kafka-Key, X-Kafka-Partition, "
            + "X-LFS-Checksum, X-LFS-Checksum-Alg, X-LFS-Size, X-LFS-Mode, X-Request-ID, X-API-Key, Authorization";
    static final String EXPOSE_HEADERS = "X-Request-ID, X-Kafscale-LFS-Checksum, X-Kafscale-LFS-Content-Length";

    private Cors() {
    }

    static void add(HttpHeaders headers) {
        headers.set("Access-Control-Allow-Origin", "*");
        headers.set("Access-Control-Allow-Methods", ALLOW_METHODS);
        headers.set("Access-Control-Allow-Headers", ALLOW_HEADERS);
        headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    }
}
