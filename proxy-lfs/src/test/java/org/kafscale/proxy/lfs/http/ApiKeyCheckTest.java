package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

class ApiKeyCheckTest {
    private final ApiKeyCheck check = new ApiKeyCheck("k3y");

    private static HttpHeaders headers(String name, String value) {
        return new DefaultHttpHeaders().add(name, value);
    }

    @Test
    void keyFromXApiKeyIsAccepted() {
        assertTrue(check.accepts(headers("X-API-Key", "k3y")));
    }

    @Test
    void bearerPrefixIsCaseInsensitive() {
        assertTrue(check.accepts(headers("Authorization", "Bearer k3y")));
        assertTrue(check.accepts(headers("Authorization", "bEARER k3y")));
    }

    @Test
    void missingOrWrongKeyIsRefused() {
        assertFalse(check.accepts(new DefaultHttpHeaders()));
        assertFalse(check.accepts(headers("X-API-Key", "k3y-not")));
        assertFalse(check.accepts(headers("Authorization", "Basic k3y")));
        assertFalse(check.accepts(headers("Authorization", "Bearer ")));
    }

    @Test
    void withoutAConfiguredKeyEverythingPasses() {
        assertTrue(new ApiKeyCheck("").accepts(new DefaultHttpHeaders()));
    }
}
