package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpMethod;

/** Method checks for {@link LfsRoute#checkMethod}. */
public final class Methods {
    private Methods() {
    }

    /** 405 {@code method_not_allowed} unless {@code method} is POST. */
    public static void requirePost(HttpMethod method) {
        if (!HttpMethod.POST.equals(method)) {
            throw new LfsException(405, "method_not_allowed", "method not allowed");
        }
    }
}
