package org.kafscale.proxy.app.health;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.kafscale.proxy.core.security.tls.ListenerTlsSettings.KeyMaterial;

/**
 * {@code certificate_expiring}: the listener's certificate (or one of its chain) expires within
 * the warning window ({@code KAFSCALE_PROXY_HEALTH_CERT_EXPIRY_WARN_DAYS}, {@link #WARN_WITHIN} by
 * default), or has expired. It reads the files the listener reloads from, so a
 * rotated certificate clears the reason as soon as it is in place; the file is parsed again only
 * when its modification time changes. A file that cannot be read is the listener's reload's
 * problem (it keeps the running certificate and says so), not a reason here.
 */
public final class CertificateExpiry implements DegradationCheck {
    /** Two weeks: cert-manager renews at two thirds of a 90-day life, so a renewal that failed shows for weeks. */
    public static final Duration WARN_WITHIN = Duration.ofDays(14);

    private final Duration warnWithin;
    private final String what;
    private final KeyMaterial material;
    private final Clock clock;
    private FileTime readAt;
    private Optional<Instant> notAfter = Optional.empty();

    /**
     * @param what the listener, as the reason names it (e.g. {@code the Kafka listener})
     */
    public CertificateExpiry(String what, KeyMaterial material, Clock clock) {
        this(what, material, WARN_WITHIN, clock);
    }

    /**
     * @param what the listener, as the reason names it (e.g. {@code the Kafka listener})
     * @param warnWithin how long before the expiry the reason appears
     */
    public CertificateExpiry(String what, KeyMaterial material, Duration warnWithin, Clock clock) {
        this.what = what;
        this.warnWithin = warnWithin;
        this.material = material;
        this.clock = clock;
    }

    @Override
    public synchronized List<HealthReason> failing() {
        Optional<Instant> expiry = earliestNotAfter();
        if (expiry.isEmpty()) {
            return List.of();
        }
        Instant now = clock.instant();
        Duration left = Duration.between(now, expiry.get());
        if (left.compareTo(warnWithin) > 0) {
            return List.of();
        }
        String detail = left.isNegative() ? "the certificate of " + what + " expired at " + expiry.get()
                : "the certificate of " + what + " expires at " + expiry.get() + ", in " + left.toDays() + " days";
        // Since when it was within the window: an operator sees how long the renewal has been missing.
        Instant since = expiry.get().minus(warnWithin);
        return List.of(new HealthReason("certificate_expiring", detail, since));
    }

    private Optional<Instant> earliestNotAfter() {
        Path file = material.files().get(0);
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            if (!modified.equals(readAt)) {
                notAfter = certificates().stream().map(c -> c.getNotAfter().toInstant()).min(Instant::compareTo);
                readAt = modified;
            }
        } catch (Exception unreadable) {
            // Between a rotation's two writes, or removed: keep what the last read found.
        }
        return notAfter;
    }

    private List<X509Certificate> certificates() throws Exception {
        List<X509Certificate> certificates = new ArrayList<>();
        if (material instanceof KeyMaterial.Pem pem) {
            try (InputStream in = Files.newInputStream(pem.certFile())) {
                for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    certificates.add((X509Certificate) c);
                }
            }
        } else if (material instanceof KeyMaterial.KeyStoreFile store) {
            KeyStore keyStore = KeyStore.getInstance(store.type());
            try (InputStream in = Files.newInputStream(store.file())) {
                keyStore.load(in, store.password().toCharArray());
            }
            for (String alias : Collections.list(keyStore.aliases())) {
                Certificate[] chain = keyStore.getCertificateChain(alias);
                for (Certificate c : chain == null ? new Certificate[0] : chain) {
                    certificates.add((X509Certificate) c);
                }
            }
        }
        return certificates;
    }
}
