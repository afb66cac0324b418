package org.kafscale.proxy.core.encryption;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts and decrypts one record value with AES-256-GCM under a data key of {@link DataKeys};
 * the envelope header is the additional authenticated data, so the header and the value are
 * checked together.
 */
final class RecordCipher {
    private static final int TAG_BITS = 128;

    private RecordCipher() {
    }

    /** The encrypted value and its envelope header. */
    record Sealed(ByteBuffer value, byte[] header) {
    }

    /** {@code plaintext} sealed; {@code headers} says it holds the record's headers too ({@link SealedHeaders}). */
    static Sealed seal(DataKeys keys, DataKeys.Current key, ByteBuffer plaintext, boolean headers) {
        byte[] iv = keys.iv();
        byte[] header = new Envelope(key.keyId, key.wrapped, iv, headers).encode();
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
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
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
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
