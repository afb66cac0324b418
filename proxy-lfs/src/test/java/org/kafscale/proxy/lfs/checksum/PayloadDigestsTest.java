package org.kafscale.proxy.lfs.checksum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PayloadDigestsTest {
    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
    private static final String SHA256 = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    private static PayloadDigests.Result digest(ChecksumAlg alg) {
        PayloadDigests digests = new PayloadDigests(alg);
        digests.update(HELLO, 0, 2);
        digests.update(ByteBuffer.wrap(HELLO, 2, 3));
        return digests.finish();
    }

    @Test
    void sha256IsAlwaysComputedAndTheChosenChecksumBesideIt() {
        assertEquals(new PayloadDigests.Result(5, SHA256, SHA256, ChecksumAlg.SHA256), digest(ChecksumAlg.SHA256));
        assertEquals(new PayloadDigests.Result(5, SHA256, "5d41402abc4b2a76b9719d911017c592", ChecksumAlg.MD5),
                digest(ChecksumAlg.MD5));
        assertEquals(new PayloadDigests.Result(5, SHA256, "3610a686", ChecksumAlg.CRC32), digest(ChecksumAlg.CRC32));
        assertEquals(new PayloadDigests.Result(5, SHA256, "", ChecksumAlg.NONE), digest(ChecksumAlg.NONE));
    }

    @Test
    void algorithmNamesAreCaseInsensitive() {
        assertEquals(ChecksumAlg.CRC32, ChecksumAlg.parse(" CRC32 ").orElseThrow());
        assertEquals(java.util.Optional.empty(), ChecksumAlg.parse("sha1"));
    }
}
