package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * The API key of spec §4.2: from {@code X-API-Key} (trimmed), else {@code Authorization: Bearer}
 * (prefix case-insensitive), compared in constant time so the answer time says nothing about
 * how much of a guess was right.
 */
public final class ApiKeyCheck {
    private static final String BEARER = "bearer ";
    private final byte[] expected;

    public ApiKeyCheck(String apiKey) {
        this.expected = apiKey == null ? new byte[0] : apiKey.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether a key is configured at all. */
    public boolean enabled() {
        return expected.length > 0;
    }

    /** True when no key is configured or the request carries it. */
    public boolean accepts(HttpHeaders headers) {
        if (!enabled()) {
            return true;
        }
        String presented = presentedKey(headers);
        return !presented.isEmpty() && MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.UTF_8));
    }

    static String presentedKey(HttpHeaders headers) {
        String header = headers.get("X-API-Key");
        if (header != null && !header.trim().isEmpty()) {
            return header.trim();
        }
        String auth = headers.get("Authorization");
        if (auth != null) {
            String trimmed = auth.trim();
            if (trimmed.length() > BEARER.length()
                    && trimmed.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
                return trimmed.substring(BEARER.length()).trim();
            }
        }
        return "";
    }
}
