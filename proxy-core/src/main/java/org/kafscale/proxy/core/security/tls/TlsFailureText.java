package org.kafscale.proxy.core.security.tls;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says a TLS failure the same way whichever provider raised it. BoringSSL reports an alert from
 * the peer as {@code error:10000412:SSL routines:OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE}
 * where the JDK says {@code Received fatal alert: bad_certificate}; the log lines an operator
 * reads (and searches for) get the JDK's words after BoringSSL's own.
 */
public final class TlsFailureText {
    private static final Pattern BORINGSSL_ALERT = Pattern.compile("OPENSSL_internal:(?:SSLV3|TLSV1)_ALERT_([A-Z0-9_]+)");
    private static final Pattern BORINGSSL_REASON = Pattern.compile("OPENSSL_internal:([A-Z0-9_]+)");

    private TlsFailureText() {
    }

    /** {@code failure} as a string, with what a BoringSSL error code means appended. */
    public static String of(Throwable failure) {
        return withMeaning(String.valueOf(failure));
    }

    /** {@code text}, with what a BoringSSL error code in it means appended. */
    public static String withMeaning(String text) {
        Matcher alert = BORINGSSL_ALERT.matcher(text);
        if (alert.find()) {
            return text + " (received fatal alert: " + alert.group(1).toLowerCase(Locale.ROOT) + ")";
        }
        Matcher reason = BORINGSSL_REASON.matcher(text);
        if (reason.find()) {
            return text + " (" + reason.group(1).toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
        }
        return text;
    }
}
