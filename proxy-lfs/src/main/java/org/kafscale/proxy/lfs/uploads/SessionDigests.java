package org.kafscale.proxy.lfs.uploads;

import java.util.Optional;

import org.kafscale.proxy.lfs.checksum.ChecksumAlg;

/**
 * The whole object's SHA-256 and the requested checksum, continued from a session's saved states.
 */
final class SessionDigests {

    /** Saved states; {@code checksum} is null when the algorithm needs no state of its own. */
    record State(byte[] sha256, byte[] checksum) {
    }

    private final ChecksumAlg algorithm;
    private final RunningChecksum sha256;
    private final Optional<RunningChecksum> checksum;

    private SessionDigests(ChecksumAlg algorithm, RunningChecksum sha256, Optional<RunningChecksum> checksum) {
        this.algorithm = algorithm;
        this.sha256 = sha256;
        this.checksum = checksum;
    }

    static SessionDigests start(ChecksumAlg algorithm) {
        return new SessionDigests(algorithm, ResumableDigest.sha256(), startOwn(algorithm));
    }

    static SessionDigests resume(UploadSession session) {
        ChecksumAlg algorithm = session.algorithm();
        byte[] saved = session.checksumState();
        Optional<RunningChecksum> checksum = saved == null ? startOwn(algorithm) : switch (algorithm) {
            case MD5 -> Optional.of(ResumableDigest.md5(saved));
            case CRC32 -> Optional.of(ResumableCrc32.resume(saved));
            case SHA256, NONE -> Optional.empty();
        };
        return new SessionDigests(algorithm, ResumableDigest.sha256(session.sha256State()), checksum);
    }

    /** SHA-256 reuses the object's SHA-256 and none computes nothing: only MD5 and CRC-32 keep a state. */
    private static Optional<RunningChecksum> startOwn(ChecksumAlg algorithm) {
        return switch (algorithm) {
            case MD5 -> Optional.of(ResumableDigest.md5());
            case CRC32 -> Optional.of(ResumableCrc32.start());
            case SHA256, NONE -> Optional.empty();
        };
    }

    void update(byte[] bytes, int offset, int length) {
        sha256.update(bytes, offset, length);
        checksum.ifPresent(c -> c.update(bytes, offset, length));
    }

    State state() {
        return new State(sha256.state(), checksum.map(RunningChecksum::state).orElse(null));
    }

    String sha256Hex() {
        return sha256.hex();
    }

    /** The requested checksum: the SHA-256 itself for sha256, empty for none. */
    Optional<String> checksumHex() {
        return switch (algorithm) {
            case SHA256 -> Optional.of(sha256.hex());
            case NONE -> Optional.empty();
            case MD5, CRC32 -> checksum.map(RunningChecksum::hex);
        };
    }
}
