package org.kafscale.proxy.lfs.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.Map;

/**
 * Header values the LFS API passes on (into responses, envelopes, tracker events and S3 object
 * metadata) must be one short line: a control character could split a header further down the
 * line, and a 500 KB {@code X-Request-ID} would be echoed in every answer and event.
 */
public final class HeaderValues {
    /** Longer than any UUID or trace id a client would send. */
    public static final int MAX_REQUEST_ID = 128;
    /** RFC 6838 allows 127 characters each for type and subtype; parameters fit in the rest. */
    public static final int MAX_CONTENT_TYPE = 255;

    private HeaderValues() {
    }

    /** Throws 400 {@code invalid_request} when {@code value} is longer than {@code max} or holds a control character. */
    public static void check(String name, String value, int max) {
        if (value.length() > max) {
            throw LfsException.badRequest("invalid_request", name + " is longer than " + max + " characters");
        }
        if (hasControl(value)) {
            throw LfsException.badRequest("invalid_request", name + " holds a control character");
        }
    }

    /** The name of the first header whose value holds a control character, or null. */
    static String firstWithControl(HttpHeaders headers) {
        for (Map.Entry<String, String> header : headers) {
            if (hasControl(header.getValue())) {
                return header.getKey();
            }
        }
        return null;
    }

    /** CR, LF, NUL and the other C0 controls and DEL; a horizontal tab is whitespace in a header. */
    private static boolean hasControl(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                return true;
            }
        }
        return false;
    }
}
