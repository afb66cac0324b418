package org.kafscale.proxy.lfs.checksum;

import java.util.Locale;
import java.util.Optional;

/** The checksum algorithms a client may ask for (spec §4.3); SHA-256 is always computed as well. */
public enum ChecksumAlg {
    SHA256("sha256"), MD5("md5"), CRC32("crc32"), NONE("none");

    private final String wireName;

    ChecksumAlg(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in headers and in the envelope. */
    public String wireName() {
        return wireName;
    }

    /** The algorithm named {@code name} (case-insensitive, trimmed), or empty when unsupported. */
    public static Optional<ChecksumAlg> parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (ChecksumAlg alg : values()) {
            if (alg.wireName.equals(n)) {
                return Optional.of(alg);
            }
        }
        return Optional.empty();
    }
}
