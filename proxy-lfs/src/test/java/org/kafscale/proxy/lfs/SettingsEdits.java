package org.kafscale.proxy.lfs;

import java.nio.file.Path;
import java.time.Duration;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.lfs.tracker.TrackerSettings;

/** Copies of test settings with one thing changed. */
final class SettingsEdits {
    private SettingsEdits() {
    }

    static LfsSettings apiKey(LfsSettings s, String key) {
        return copy(s, s.s3(), s.tracker(), s.http().withApiKey(key), s.maxBlobSize(), s.downloadTtl(),
                s.presignEnabled(), s.tempDir());
    }

    static LfsSettings maxBlobSize(LfsSettings s, long max) {
        return copy(s, s.s3(), s.tracker(), s.http(), max, s.downloadTtl(), s.presignEnabled(), s.tempDir());
    }

    static LfsSettings s3(LfsSettings s, S3Settings s3) {
        return copy(s, s3, s.tracker(), s.http(), s.maxBlobSize(), s.downloadTtl(), s.presignEnabled(), s.tempDir());
    }

    static LfsSettings tempDir(LfsSettings s, Path dir) {
        return copy(s, s.s3(), s.tracker(), s.http(), s.maxBlobSize(), s.downloadTtl(), s.presignEnabled(), dir);
    }

    static LfsSettings presign(LfsSettings s, Duration ttl) {
        return copy(s, s.s3(), s.tracker(), s.http(), s.maxBlobSize(), ttl, true, s.tempDir());
    }

    static LfsSettings tls(LfsSettings s, org.kafscale.proxy.lfs.http.TlsSettings tls) {
        return copy(s, s.s3(), s.tracker(), s.http().withTls(tls), s.maxBlobSize(), s.downloadTtl(),
                s.presignEnabled(), s.tempDir());
    }

    static LfsSettings trustedProxies(LfsSettings s, String... blocks) {
        return copy(s, s.s3(), s.tracker(), s.http().withTrustedProxies(
                        org.kafscale.proxy.lfs.http.TrustedProxies.parse(java.util.List.of(blocks))), s.maxBlobSize(),
                s.downloadTtl(), s.presignEnabled(), s.tempDir());
    }

    static LfsSettings tracker(LfsSettings s, TrackerSettings tracker) {
        return copy(s, s.s3(), tracker, s.http(), s.maxBlobSize(), s.downloadTtl(), s.presignEnabled(), s.tempDir());
    }

    private static LfsSettings copy(LfsSettings s, S3Settings s3, TrackerSettings tracker,
                                    org.kafscale.proxy.lfs.http.HttpSettings http, long maxBlob, Duration downloadTtl,
                                    boolean presign, Path tempDir) {
        return new LfsSettings(s3, http, s.publish(), tracker, s.namespace(), s.proxyId(), maxBlob, s.chunkSize(),
                s.defaultChecksum(), s.topicMaxLength(), downloadTtl, presign, s.uploadSessionTtl(), s.dialTimeout(),
                tempDir);
    }
}
