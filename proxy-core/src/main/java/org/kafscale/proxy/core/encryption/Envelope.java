package org.kafscale.proxy.core.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The record header {@value #HEADER} the proxy puts on each record it encrypts, binary:
 * {@code version (1 byte) | KEK id length (1) | KEK id (UTF-8) | wrapped key length (2) | wrapped
 * data key | IV (12)}. Version 1 seals the value alone; version 2 the record's headers with it
 * ({@link SealedHeaders}), so a reader knows from the envelope, not from its rule, what the
 * plaintext holds. The wrapped key travels with every record, so any proxy holding the KEK
 * decrypts it, whatever keys it made itself; the whole header is the cipher's additional
 * authenticated data, so none of it can be changed without the record failing to decrypt.
 *
 * @param keyId the KEK's id
 * @param wrappedKey the data key, wrapped by the KEK
 * @param iv the AES-GCM nonce of this record
 * @param headers whether the plaintext holds the record's headers before its value (version 2)
 */
record Envelope(String keyId, byte[] wrappedKey, byte[] iv, boolean headers) {
    static final String HEADER = "kafscale.enc";
    static final byte VERSION = 1;
    static final byte VERSION_WITH_HEADERS = 2;
    static final int IV_BYTES = 12;

    byte[] encode() {
        byte[] id = keyId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(1 + 1 + id.length + 2 + wrappedKey.length + IV_BYTES);
        out.put(headers ? VERSION_WITH_HEADERS : VERSION).put((byte) id.length).put(id).putShort((short) wrappedKey.length).put(wrappedKey).put(iv);
        return out.array();
    }

    /**
     * @throws IllegalArgumentException when {@code header} is no version 1 or 2 envelope
     */
    static Envelope parse(byte[] header) {
        try {
            ByteBuffer in = ByteBuffer.wrap(header);
            byte version = in.get();
            if (version != VERSION && version != VERSION_WITH_HEADERS) {
                throw new IllegalArgumentException("envelope version " + version + " is not known");
            }
            byte[] id = new byte[Byte.toUnsignedInt(in.get())];
            in.get(id);
            byte[] wrapped = new byte[Short.toUnsignedInt(in.getShort())];
            in.get(wrapped);
            byte[] iv = new byte[IV_BYTES];
            in.get(iv);
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("envelope has " + in.remaining() + " bytes too many");
            }
            return new Envelope(new String(id, StandardCharsets.UTF_8), wrapped, iv, version == VERSION_WITH_HEADERS);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("envelope is cut short", e);
        }
    }
}
