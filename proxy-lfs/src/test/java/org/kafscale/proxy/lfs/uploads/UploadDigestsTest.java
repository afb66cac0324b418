package org.kafscale.proxy.lfs.uploads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;

class UploadDigestsTest {

    private static final byte[] FIRST = UploadsTestbed.payload(100_003, 1);
    private static final byte[] SECOND = UploadsTestbed.payload(77_777, 2);

    @Test
    void sha256ResumedFromItsStateEqualsTheDigestOfTheWholeBody() throws Exception {
        assertEquals(jdk("SHA-256", FIRST, SECOND), hexAfterResume(ResumableDigest.sha256(), ResumableDigest::sha256));
    }

    @Test
    void readingTheHexDoesNotDisturbTheRunningState() throws Exception {
        RunningChecksum digest = ResumableDigest.sha256();
        digest.update(FIRST, 0, FIRST.length);
        assertEquals(jdk("SHA-256", FIRST), digest.hex());
        digest.update(SECOND, 0, SECOND.length);
        assertEquals(jdk("SHA-256", FIRST, SECOND), digest.hex());
    }

    @Test
    void md5ResumesToo() throws Exception {
        assertEquals(jdk("MD5", FIRST, SECOND), hexAfterResume(ResumableDigest.md5(), ResumableDigest::md5));
    }

    @Test
    void crc32ResumedMatchesJavaUtilZip() {
        CRC32 expected = new CRC32();
        expected.update(FIRST);
        expected.update(SECOND);
        assertEquals(String.format("%08x", expected.getValue()),
                hexAfterResume(ResumableCrc32.start(), ResumableCrc32::resume));
    }

    /** Hashes the first part, saves the state, resumes it as another replica would and hashes the second. */
    private static String hexAfterResume(RunningChecksum fresh, Function<byte[], RunningChecksum> resume) {
        fresh.update(FIRST, 0, FIRST.length);
        RunningChecksum resumed = resume.apply(fresh.state());
        resumed.update(SECOND, 0, SECOND.length);
        return resumed.hex();
    }

    @Test
    void sessionDigestsGiveTheRequestedChecksumAfterAResume() throws Exception {
        for (ChecksumAlg alg : List.of(ChecksumAlg.SHA256, ChecksumAlg.MD5, ChecksumAlg.CRC32, ChecksumAlg.NONE)) {
            SessionDigests first = SessionDigests.start(alg);
            first.update(FIRST, 0, FIRST.length);
            SessionDigests.State state = first.state();
            UploadSession session = new UploadSession("id", "b", "k", "u", "t", 0, null, null, "x", 1, 1,
                    alg.wireName(), null, "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z", List.of(), 0,
                    state.sha256(), state.checksum(), false, null);

            SessionDigests resumed = SessionDigests.resume(UploadSessionCodec.decode(UploadSessionCodec.encode(session)));
            resumed.update(SECOND, 0, SECOND.length);

            assertEquals(jdk("SHA-256", FIRST, SECOND), resumed.sha256Hex(), alg.wireName());
            String expected = switch (alg) {
                case SHA256 -> jdk("SHA-256", FIRST, SECOND);
                case MD5 -> jdk("MD5", FIRST, SECOND);
                case CRC32 -> {
                    CRC32 crc = new CRC32();
                    crc.update(FIRST);
                    crc.update(SECOND);
                    yield String.format("%08x", crc.getValue());
                }
                case NONE -> "";
            };
            assertEquals(expected, resumed.checksumHex().orElse(""), alg.wireName());
        }
    }

    private static String jdk(String algorithm, byte[]... pieces) throws Exception {
        MessageDigest digest = MessageDigest.getInstance(algorithm);
        for (byte[] piece : pieces) {
            digest.update(piece);
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
