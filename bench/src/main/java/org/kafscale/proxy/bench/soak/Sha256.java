package org.kafscale.proxy.bench.soak;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 in lowercase hex, as LFS envelopes carry it, of bytes or of a stream read once. */
final class Sha256 {
    /** The size and SHA-256 of what a stream held. */
    record Sized(long size, String hex) {
    }

    private Sha256() {
    }

    static String of(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    static Sized of(InputStream in) throws IOException {
        MessageDigest digest = digest();
        byte[] buffer = new byte[64 * 1024];
        long size = 0;
        for (int read; (read = in.read(buffer)) >= 0; ) {
            digest.update(buffer, 0, read);
            size += read;
        }
        return new Sized(size, HexFormat.of().formatHex(digest.digest()));
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
