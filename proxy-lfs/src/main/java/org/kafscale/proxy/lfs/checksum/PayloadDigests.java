package org.kafscale.proxy.lfs.checksum;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.zip.CRC32;

/**
 * The digests of one payload, fed as its bytes pass: SHA-256 always (the envelope's
 * {@code sha256}), plus the client's chosen algorithm for the envelope's {@code checksum}.
 * Not thread-safe; one upload feeds it in order.
 */
public final class PayloadDigests {
    private static final HexFormat HEX = HexFormat.of();

    private final ChecksumAlg alg;
    private final MessageDigest sha256;
    private final MessageDigest md5;
    private final CRC32 crc32;
    private long size;

    public PayloadDigests(ChecksumAlg alg) {
        this.alg = alg;
        this.sha256 = newDigest("SHA-256");
        this.md5 = alg == ChecksumAlg.MD5 ? newDigest("MD5") : null;
        this.crc32 = alg == ChecksumAlg.CRC32 ? new CRC32() : null;
    }

    public void update(byte[] bytes, int offset, int length) {
        sha256.update(bytes, offset, length);
        if (md5 != null) {
            md5.update(bytes, offset, length);
        }
        if (crc32 != null) {
            crc32.update(bytes, offset, length);
        }
        size += length;
    }

    public void update(ByteBuffer bytes) {
        int position = bytes.position();
        sha256.update(bytes);
        if (md5 != null) {
            bytes.position(position);
            md5.update(bytes);
        }
        if (crc32 != null) {
            bytes.position(position);
            crc32.update(bytes);
        }
        size += bytes.position() - position;
    }

    /** Bytes seen so far. */
    public long size() {
        return size;
    }

    public ChecksumAlg alg() {
        return alg;
    }

    /** Completes the digests; call once, after the last byte. */
    public Result finish() {
        String sha = HEX.formatHex(sha256.digest());
        String checksum = switch (alg) {
            case SHA256 -> sha;
            case MD5 -> HEX.formatHex(md5.digest());
            // IEEE polynomial, the four bytes big-endian: eight hex digits, as KafScale writes it.
            case CRC32 -> String.format("%08x", crc32.getValue());
            case NONE -> "";
        };
        return new Result(size, sha, checksum, alg);
    }

    private static MessageDigest newDigest(String name) {
        try {
            return MessageDigest.getInstance(name);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(name + " is missing from this JVM", e);
        }
    }

    /**
     * @param size payload bytes
     * @param sha256 lowercase hex SHA-256
     * @param checksum lowercase hex digest in {@code alg}, empty for {@link ChecksumAlg#NONE}
     * @param alg the chosen algorithm
     */
    public record Result(long size, String sha256, String checksum, ChecksumAlg alg) {
    }
}
