package org.kafscale.proxy.lfs.uploads;

import java.util.HexFormat;
import java.util.function.Function;

import org.bouncycastle.crypto.ExtendedDigest;
import org.bouncycastle.crypto.digests.EncodableDigest;
import org.bouncycastle.crypto.digests.MD5Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.util.Memoable;

/**
 * SHA-256 or MD5 whose internal state can be exported and imported (BouncyCastle's encodable
 * digests); the JDK's MessageDigest cannot be resumed from bytes.
 */
final class ResumableDigest<D extends ExtendedDigest & EncodableDigest & Memoable> implements RunningChecksum {

    private final D digest;
    private final Function<D, D> copier;

    private ResumableDigest(D digest, Function<D, D> copier) {
        this.digest = digest;
        this.copier = copier;
    }

    static ResumableDigest<SHA256Digest> sha256() {
        return new ResumableDigest<>(new SHA256Digest(), SHA256Digest::new);
    }

    static ResumableDigest<SHA256Digest> sha256(byte[] state) {
        return new ResumableDigest<>(new SHA256Digest(state), SHA256Digest::new);
    }

    static ResumableDigest<MD5Digest> md5() {
        return new ResumableDigest<>(new MD5Digest(), MD5Digest::new);
    }

    static ResumableDigest<MD5Digest> md5(byte[] state) {
        return new ResumableDigest<>(new MD5Digest(state), MD5Digest::new);
    }

    @Override
    public void update(byte[] bytes, int offset, int length) {
        digest.update(bytes, offset, length);
    }

    @Override
    public byte[] state() {
        return digest.getEncodedState();
    }

    @Override
    public String hex() {
        // doFinal resets the digest it runs on, so it runs on a copy.
        D copy = copier.apply(digest);
        byte[] out = new byte[copy.getDigestSize()];
        copy.doFinal(out, 0);
        return HexFormat.of().formatHex(out);
    }
}
