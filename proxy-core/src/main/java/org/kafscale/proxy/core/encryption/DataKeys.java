package org.kafscale.proxy.core.encryption;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The data keys of one encryption rule: the current AES-256 key of each topic, made fresh after
 * {@code rotateAfterRecords} records or {@code rotateAfterNanos} (whichever comes first), and every
 * key unwrapped for decryption, cached so a KEK is asked once per data key. Shared by every
 * connection's event loop: a topic's key is swapped in the map's compute (held, once per
 * rotation, for a wrap), and counted atomically.
 */
final class DataKeys {
    /** Unwrapped keys kept at most; past it the cache starts again (a few keys per topic are live). */
    private static final int CACHED_KEYS = 4096;

    private final KeyEncryptionKeys keks;
    private final long rotateAfterRecords;
    private final long rotateAfterNanos;
    private final LongSupplier nanos;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Current> current = new ConcurrentHashMap<>();
    private final Map<String, SecretKey> unwrapped = new ConcurrentHashMap<>();

    DataKeys(KeyEncryptionKeys keks, long rotateAfterRecords, long rotateAfterNanos, LongSupplier nanos) {
        this.keks = keks;
        this.rotateAfterRecords = rotateAfterRecords;
        this.rotateAfterNanos = rotateAfterNanos;
        this.nanos = nanos;
    }

    /** A data key with its wrapped form, and how many records it encrypted since it was made. */
    static final class Current {
        final SecretKey key;
        final String keyId;
        final byte[] wrapped;
        final long madeAt;
        /** Records encrypted under it, counted by whichever loop takes it. */
        final AtomicLong used = new AtomicLong();

        Current(SecretKey key, String keyId, byte[] wrapped, long madeAt) {
            this.key = key;
            this.keyId = keyId;
            this.wrapped = wrapped;
            this.madeAt = madeAt;
        }
    }

    /** The key for the next {@code records} records of {@code topic}; a new one when the current is spent. */
    Current forRecords(String topic, int records) {
        Current key = current.compute(topic, (t, old) -> {
            long now = nanos.getAsLong();
            if (old == null || old.used.get() >= rotateAfterRecords || now - old.madeAt >= rotateAfterNanos) {
                return fresh(now);
            }
            return old;
        });
        key.used.addAndGet(records);
        return key;
    }

    /** The data key {@code envelope} names, unwrapped once and cached. */
    SecretKey unwrap(Envelope envelope) {
        String cacheKey = envelope.keyId() + '/' + Base64.getEncoder().encodeToString(envelope.wrappedKey());
        SecretKey key = unwrapped.get(cacheKey);
        if (key == null) {
            key = keks.unwrap(envelope.keyId(), envelope.wrappedKey());
            if (unwrapped.size() >= CACHED_KEYS) {
                unwrapped.clear();
            }
            unwrapped.put(cacheKey, key);
        }
        return key;
    }

    private Current fresh(long now) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        SecretKey key = new SecretKeySpec(bytes, "AES");
        byte[] wrapped = keks.wrap(key);
        unwrapped.put(keks.keyId() + '/' + Base64.getEncoder().encodeToString(wrapped), key);
        return new Current(key, keks.keyId(), wrapped, now);
    }

    /** Random bytes for an IV. */
    byte[] iv() {
        byte[] iv = new byte[Envelope.IV_BYTES];
        random.nextBytes(iv);
        return iv;
    }
}
