package org.kafscale.proxy.core.encryption;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.kafscale.proxy.core.codec.RecordRewrites;
import org.apache.kafka.common.header.Header;

/**
 * The plaintext of a record sealed with its headers (a rule's {@code headers: true}): the headers,
 * then the value. {@code count (4 bytes) | per header: key length (2) | key (UTF-8) | value length
 * (4, -1 for none) | value}, then the record's value to the end. Kept apart from the cipher, which
 * seals whatever bytes it is given.
 */
final class SealedHeaders {
    private SealedHeaders() {
    }

    /** A record's headers and value, out of the plaintext of a version 2 envelope. */
    record Split(Header[] headers, ByteBuffer value) {
    }

    static ByteBuffer join(Header[] headers, ByteBuffer value) {
        int size = 4 + value.remaining();
        byte[][] keys = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            keys[i] = headers[i].key().getBytes(StandardCharsets.UTF_8);
            if (keys[i].length > 0xFFFF) {
                throw new IllegalArgumentException("a header key of " + keys[i].length + " bytes is too long to seal");
            }
            size += 2 + keys[i].length + 4 + (headers[i].value() == null ? 0 : headers[i].value().length);
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(headers.length);
        for (int i = 0; i < headers.length; i++) {
            byte[] headerValue = headers[i].value();
            out.putShort((short) keys[i].length).put(keys[i]).putInt(headerValue == null ? -1 : headerValue.length);
            if (headerValue != null) {
                out.put(headerValue);
            }
        }
        out.put(value.duplicate());
        return out.flip();
    }

    /**
     * @throws IllegalArgumentException when {@code plaintext} does not start with headers as
     *         {@link #join} writes them (it authenticated, so only a proxy's bug would do that)
     */
    static Split split(ByteBuffer plaintext) {
        ByteBuffer in = plaintext.duplicate();
        try {
            int count = in.getInt();
            if (count < 0 || count > in.remaining()) {
                throw new IllegalArgumentException("sealed headers count " + count + " is impossible");
            }
            Header[] headers = new Header[count];
            for (int i = 0; i < count; i++) {
                byte[] key = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(key);
                int length = in.getInt();
                byte[] value = null;
                if (length >= 0) {
                    value = new byte[length];
                    in.get(value);
                }
                headers[i] = RecordRewrites.header(new String(key, StandardCharsets.UTF_8), value);
            }
            return new Split(headers, in.slice());
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new IllegalArgumentException("sealed headers are cut short", e);
        }
    }
}
