package org.kafscale.proxy.app.lfs;

import java.io.InputStream;

/**
 * {@code length} bytes of a fixed pseudo-random pattern, generated as they are read, so a test
 * can send a 1 GiB body without holding or writing it.
 */
final class PatternStream extends InputStream {
    private final long length;
    private long position;

    PatternStream(long length) {
        this.length = length;
    }

    static byte at(long position) {
        long x = position * 0x9E3779B97F4A7C15L;
        return (byte) (x >>> 56 ^ x >>> 17);
    }

    @Override
    public int read() {
        return position < length ? at(position++) & 0xFF : -1;
    }

    @Override
    public int read(byte[] buffer, int offset, int count) {
        if (position >= length) {
            return -1;
        }
        int n = (int) Math.min(count, length - position);
        for (int i = 0; i < n; i++) {
            buffer[offset + i] = at(position + i);
        }
        position += n;
        return n;
    }
}
