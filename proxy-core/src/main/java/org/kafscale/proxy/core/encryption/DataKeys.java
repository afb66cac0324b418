package org.kafscale.proxy.core.encryption;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
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
    private final Map<Wrapped, SecretKey> unwrapped = new ConcurrentHashMap<>();

    /** A wrapped key under its KEK, compared by content (a ByteBuffer's equality), the unwrap cache's key. */
    private record Wrapped(String keyId, ByteBuffer wrappedKey) {
    }

    DataKeys(KeyEncryptionKeys keks, long rotateAfterRecords, long rotateAfterNanos, LongSupplier nanos) {
        this.keks = keks;
        this.rotateAfterRecords = rotateAfterRecords;
        this.rotateAfterNanos = rotateAfterNanos;
        this.nanos = nanos;
    }

    /**
     * A data key with its wrapped form, and how many records it encrypted since it was made.
     *
     * <p>Its IVs are NIST SP 800-38D's deterministic construction (section 8.2.1): a random fixed
     * field of 4 bytes, drawn with the key, then a 64-bit count of the IVs it gave. No IV repeats
     * under one key, whichever loops share it, where 96 random bits would only make a repeat
     * unlikely, and a record costs no call into the system's random source.
     */
    static final class Current {
        final SecretKey key;
        final String keyId;
        final byte[] wrapped;
        final long madeAt;
        /** Records encrypted under it, counted by whichever loop takes it. */
        final AtomicLong used = new AtomicLong();
        private final int ivField;
        private final AtomicLong ivs = new AtomicLong();

        Current(SecretKey key, String keyId, byte[] wrapped, long madeAt, int ivField) {
            this.key = key;
            this.keyId = keyId;
            this.wrapped = wrapped;
            this.madeAt = madeAt;
            this.ivField = ivField;
        }

        /** The next IV under this key: the fixed field, then the count. */
        byte[] nextIv() {
            return ByteBuffer.allocate(Envelope.IV_BYTES).putInt(ivField).putLong(ivs.getAndIncrement()).array();
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
        Wrapped cacheKey = new Wrapped(envelope.keyId(), ByteBuffer.wrap(envelope.wrappedKey()));
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
        unwrapped.put(new Wrapped(keks.keyId(), ByteBuffer.wrap(wrapped)), key);
        return new Current(key, keks.keyId(), wrapped, now, random.nextInt());
    }
}
