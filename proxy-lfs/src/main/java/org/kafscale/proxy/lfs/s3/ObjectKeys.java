package org.kafscale.proxy.lfs.s3;

import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.UUID;
import org.kafscale.proxy.lfs.http.LfsException;

/**
 * The S3 key layout of LFS objects, {@code <namespace>/<topic>/lfs/YYYY/MM/DD/obj-<uuid>} (spec
 * §4.7), and the checks a download key must pass so a client can only read LFS objects of this
 * namespace.
 */
public final class ObjectKeys {
    private final String namespace;
    private final Clock clock;

    public ObjectKeys(String namespace, Clock clock) {
        this.namespace = namespace;
        this.clock = clock;
    }

    public String namespace() {
        return namespace;
    }

    /** A new key for an object of {@code topic}, dated today (UTC). */
    public String newKey(String topic) {
        LocalDate day = LocalDate.now(clock.withZone(ZoneOffset.UTC));
        return String.format("%s/%s/lfs/%04d/%02d/%02d/obj-%s", namespace, topic, day.getYear(), day.getMonthValue(),
                day.getDayOfMonth(), UUID.randomUUID());
    }

    /**
     * Checks a key a client asks to download: no leading slash, no {@code ..}, inside this
     * namespace and an LFS object. Throws 400 {@code invalid_key} otherwise.
     */
    public void checkDownloadKey(String key) {
        if (key.startsWith("/")) {
            throw LfsException.badRequest("invalid_key", "key must not start with /");
        }
        if (key.contains("..")) {
            throw LfsException.badRequest("invalid_key", "key must not contain ..");
        }
        if (!key.startsWith(namespace + "/")) {
            throw LfsException.badRequest("invalid_key", "key must start with " + namespace + "/");
        }
        if (!key.contains("/lfs/")) {
            throw LfsException.badRequest("invalid_key", "key is not an LFS object key");
        }
    }
}
