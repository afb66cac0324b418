package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TlsFailureTextTest {
    @Test
    void aBoringSslAlertGetsTheJdksWords() {
        assertEquals("error:10000412:SSL routines:OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE (received fatal alert: "
                + "bad_certificate)", TlsFailureText.withMeaning(
                "error:10000412:SSL routines:OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE"));
    }

    @Test
    void anotherBoringSslReasonIsSpelledOut() {
        assertEquals("error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED (certificate verify failed)",
                TlsFailureText.withMeaning("error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED"));
    }

    @Test
    void theJdksTextIsLeftAsItIs() {
        assertEquals("Received fatal alert: bad_certificate", TlsFailureText.withMeaning("Received fatal alert: bad_certificate"));
    }
}
