package org.kafscale.proxy.core.encryption;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts and decrypts one record value with AES-256-GCM under a data key of {@link DataKeys};
 * the envelope header is the additional authenticated data, so the header and the value are
 * checked together.
 *
 * <p>Each thread (an event loop) keeps one cipher and initialises it again per record: a fresh
 * {@code Cipher.getInstance} per record allocated several KiB (the provider lookup, the GCM and
 * AES state), most of what a sealed 1 KiB record cost. Initialising again with the same key
 * keeps its expanded schedule.
 */
final class RecordCipher {
    private static final int TAG_BITS = 128;
    private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(() -> {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no AES/GCM/NoPadding: " + e, e);
        }
    });

    private RecordCipher() {
    }

    /**
     * How much larger a record gets sealed under {@code key}, at most: the tag, the envelope header
     * (its key, its value and their length varints). Sealed headers (version 2) move the headers
     * into the value and out of the record, which costs at most their length varints.
     */
    static int growth(DataKeys.Current key) {
        int envelope = 1 + 1 + key.keyId.length() * 3 + 2 + key.wrapped.length + Envelope.IV_BYTES;
        return TAG_BITS / 8 + Envelope.HEADER.length() + envelope + 16;
    }

    /** The encrypted value and its envelope header. */
    record Sealed(ByteBuffer value, byte[] header) {
    }

    /** {@code plaintext} sealed; {@code headers} says it holds the record's headers too ({@link SealedHeaders}). */
    static Sealed seal(DataKeys keys, DataKeys.Current key, ByteBuffer plaintext, boolean headers) {
        byte[] iv = key.nextIv();
        byte[] header = new Envelope(key.keyId, key.wrapped, iv, headers).encode();
        try {
            Cipher cipher = CIPHERS.get();
            cipher.init(Cipher.ENCRYPT_MODE, key.key, new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(header);
            ByteBuffer out = ByteBuffer.allocate(cipher.getOutputSize(plaintext.remaining()));
            cipher.doFinal(plaintext.duplicate(), out);
            out.flip();
            return new Sealed(out, header);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("encrypting a record failed: " + e, e);
        }
    }

    /**
     * The plaintext of {@code value}, sealed under {@code envelope} (parsed from {@code header}).
     *
     * @throws IllegalArgumentException when its key does not unwrap or the value (or the header)
     *         was changed since it was sealed
     */
    static ByteBuffer open(DataKeys keys, Envelope envelope, byte[] header, ByteBuffer value) {
        try {
            Cipher cipher = CIPHERS.get();
            cipher.init(Cipher.DECRYPT_MODE, keys.unwrap(envelope), new GCMParameterSpec(TAG_BITS, envelope.iv()));
            cipher.updateAAD(header);
            ByteBuffer out = ByteBuffer.allocate(cipher.getOutputSize(value.remaining()));
            cipher.doFinal(value.duplicate(), out);
            out.flip();
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the record does not decrypt: " + e.getClass().getSimpleName(), e);
        }
    }
}
