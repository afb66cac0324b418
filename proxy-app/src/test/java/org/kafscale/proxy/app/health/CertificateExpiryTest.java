package org.kafscale.proxy.app.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings.KeyMaterial;
import org.kafscale.proxy.testkit.TestCertificates;

class CertificateExpiryTest {
    @TempDir
    Path dir;

    @Test
    void aCertificateWithinTheWindowIsAReasonAndOneBeyondItIsNot() {
        // Given a listener certificate valid for two days, in PEM and in a key store
        TestCertificates ca = TestCertificates.create(dir);
        TestCertificates.Identity server = ca.server();
        KeyMaterial pem = new KeyMaterial.Pem(server.chainFile(), server.keyFile(), Optional.empty());
        KeyMaterial store = new KeyMaterial.KeyStoreFile(server.keyStoreFile(), server.password(), "PKCS12");
        Clock today = Clock.systemUTC();
        Clock monthAgo = Clock.offset(Clock.system(ZoneOffset.UTC), Duration.ofDays(-30));

        // When
        List<HealthReason> pemToday = new CertificateExpiry("the Kafka listener", pem, today).failing();
        List<HealthReason> storeToday = new CertificateExpiry("the Kafka listener", store, today).failing();
        List<HealthReason> pemMonthAgo = new CertificateExpiry("the Kafka listener", pem, monthAgo).failing();

        // Then: today it (or its chain's CA, the first to expire) expires within 14 days, a month ago it did not yet
        assertEquals(1, pemToday.size());
        assertEquals("certificate_expiring", pemToday.get(0).reason());
        assertTrue(pemToday.get(0).detail().startsWith("the certificate of the Kafka listener expires at "),
                pemToday.get(0).detail());
        Instant firstToExpire = Stream.of(server.certificate(), ca.caCertificate())
                .map(c -> c.getNotAfter().toInstant()).min(Instant::compareTo).orElseThrow();
        assertEquals(firstToExpire.minus(CertificateExpiry.WARN_WITHIN), pemToday.get(0).since());
        assertEquals(pemToday, storeToday);
        assertEquals(List.of(), pemMonthAgo);
    }

    @Test
    void aShorterWindowLeavesACertificateBeyondItOut() {
        // Given a listener certificate valid for two days
        TestCertificates.Identity server = TestCertificates.create(dir).server();
        KeyMaterial pem = new KeyMaterial.Pem(server.chainFile(), server.keyFile(), Optional.empty());

        // When the window is one day, then three
        List<HealthReason> oneDay = new CertificateExpiry("the Kafka listener", pem, Duration.ofDays(1),
                Clock.systemUTC()).failing();
        List<HealthReason> threeDays = new CertificateExpiry("the Kafka listener", pem, Duration.ofDays(3),
                Clock.systemUTC()).failing();

        // Then only the window that reaches its expiry names it
        assertEquals(List.of(), oneDay);
        assertEquals(1, threeDays.size());
    }
}
