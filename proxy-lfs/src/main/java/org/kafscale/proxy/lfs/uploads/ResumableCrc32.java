package org.kafscale.proxy.lfs.uploads;

import java.nio.ByteBuffer;

/**
 * CRC-32 (IEEE, as java.util.zip.CRC32 and Go's crc32.ChecksumIEEE) that can start from a saved
 * value. java.util.zip.CRC32 cannot be seeded, and the whole state of a CRC is its 32-bit register,
 * so a table-driven update from that register is all it takes.
 */
final class ResumableCrc32 implements RunningChecksum {

    private static final int REVERSED_POLYNOMIAL = 0xEDB88320;
    private static final int[] TABLE = table();

    /** The finalised CRC of the bytes so far (the value CRC32.getValue() would give). */
    private int crc;

    private ResumableCrc32(int crc) {
        this.crc = crc;
    }

    static ResumableCrc32 start() {
        return new ResumableCrc32(0);
    }

    static ResumableCrc32 resume(byte[] state) {
        if (state.length != Integer.BYTES) {
            throw new IllegalArgumentException("a CRC-32 state is 4 bytes, got " + state.length);
        }
        return new ResumableCrc32(ByteBuffer.wrap(state).getInt());
    }

    @Override
    public void update(byte[] bytes, int offset, int length) {
        int register = ~crc;
        for (int i = offset; i < offset + length; i++) {
            register = TABLE[(register ^ bytes[i]) & 0xFF] ^ (register >>> 8);
        }
        crc = ~register;
    }

    @Override
    public byte[] state() {
        return ByteBuffer.allocate(Integer.BYTES).putInt(crc).array();
    }

    /** Big-endian, 8 hex digits, as the original proxy writes it. */
    @Override
    public String hex() {
        return String.format("%08x", crc);
    }

    private static int[] table() {
        int[] table = new int[256];
        for (int n = 0; n < table.length; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? REVERSED_POLYNOMIAL ^ (c >>> 1) : c >>> 1;
            }
            table[n] = c;
        }
        return table;
    }
}
