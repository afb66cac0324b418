package org.kafscale.proxy.core.encryption;

import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One {@code encryption} rule of the gateway file: the values of records of the topics whose real
 * name matches {@code topics} (the whole name) are encrypted under data keys wrapped by {@code keks},
 * and decrypted on Fetch for the {@code allowed} principals only.
 *
 * @param rotateAfterRecords a topic's data key encrypts at most about this many records
 * @param rotateAfter and is used at most this long
 * @param headers whether the records' headers are encrypted too, into the envelope's plaintext
 */
public record EncryptionRule(Pattern topics, KeyEncryptionKeys keks, Set<KafkaPrincipal> allowed,
                             long rotateAfterRecords, Duration rotateAfter, boolean headers) {
    public static final long DEFAULT_ROTATE_AFTER_RECORDS = 1_000_000;
    public static final Duration DEFAULT_ROTATE_AFTER = Duration.ofHours(1);

    public EncryptionRule {
        allowed = Set.copyOf(allowed);
        if (rotateAfterRecords < 1 || rotateAfter.isNegative() || rotateAfter.isZero()) {
            throw new IllegalArgumentException("rotation needs at least one record and a positive age");
        }
    }

    /** A rule that leaves headers in clear. */
    public EncryptionRule(Pattern topics, KeyEncryptionKeys keks, Set<KafkaPrincipal> allowed, long rotateAfterRecords,
                          Duration rotateAfter) {
        this(topics, keks, allowed, rotateAfterRecords, rotateAfter, false);
    }

    boolean covers(String topic) {
        return topic != null && topics.matcher(topic).matches();
    }
}
