package org.kafscale.proxy.lfs.download;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Copies an object's bytes into a temporary file while hashing them, reading at most one byte
 * more than the declared size, so an oversized object is noticed without reading it all. Blocking:
 * runs on the module's blocking executor, never on an event loop.
 */
final class VerifiedCopy {
    private static final int BUFFER = 64 * 1024;

    private VerifiedCopy() {
    }

    /**
     * @param bytesRead bytes read from S3 (at most {@code declared + 1})
     * @param sha256 lowercase hex SHA-256 of those bytes
     */
    record Outcome(long bytesRead, String sha256) {
    }

    static Outcome copy(InputStream in, Path file, long declared) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buffer = new byte[BUFFER];
        long total = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (total <= declared) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, declared + 1 - total));
                if (n < 0) {
                    break;
                }
                sha.update(buffer, 0, n);
                try {
                    out.write(buffer, 0, n);
                } catch (IOException e) {
                    throw new TempStorageException(e);
                }
                total += n;
            }
        }
        return new Outcome(total, HexFormat.of().formatHex(sha.digest()));
    }

    /** Writing the temporary file failed (as opposed to reading from S3). */
    static final class TempStorageException extends IOException {
        private static final long serialVersionUID = 1L;

        TempStorageException(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }
}
