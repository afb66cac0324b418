package org.kafscale.proxy.app.validation;

import java.nio.ByteBuffer;

/** A record's key or value as an array the parsers take, without moving the caller's buffer. */
final class RecordBytes {
    private RecordBytes() {
    }

    /**
     * The bytes of {@code buffer} from its position to its limit. Records are views of a pooled
     * direct frame, so this is a copy; a heap buffer's array would serve as it is, but the
     * parsers then need its offset too, and the copy is small next to the parse.
     */
    static byte[] of(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
