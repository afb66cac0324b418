package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpMethod;

/**
 * A route that serves one path and only POST on it ({@code /lfs/produce}, {@code /lfs/download}):
 * any other method is a 405 before the API key and S3 health checks, as the spec orders them.
 */
public interface PostRoute extends LfsRoute {

    /** The one path served, without a query string. */
    String path();

    @Override
    default boolean matches(String path) {
        return path().equals(path);
    }

    @Override
    default void checkMethod(HttpMethod method) {
        Methods.requirePost(method);
    }
}
