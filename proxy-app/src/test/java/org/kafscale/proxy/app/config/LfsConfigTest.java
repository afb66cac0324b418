package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.proxyprotocol.ProxyProtocolMode;
import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;

class LfsConfigTest {

    /** The settings of a proxy with LFS on and nothing else set: what every LFS config test starts from. */
    static Map<String, String> enabled() {
        Map<String, String> env = new HashMap<>();
        env.put(ProxyConfig.BACKENDS, "broker-0:9092");
        env.put(LfsConfig.LFS_ENABLED, "true");
        env.put(LfsConfig.HTTP_ADDR, ":8080");
        env.put(LfsConfig.S3_BUCKET, "media");
        env.put(LfsConfig.S3_REGION, "eu-west-1");
        return env;
    }

    @Test
    void lfsIsOffUnlessEnabled() {
        Map<String, String> env = enabled();
        env.remove(LfsConfig.LFS_ENABLED);
        assertTrue(ProxyConfig.from(env).lfs().isEmpty());
    }

    @Test
    void enabledLfsGetsTheOriginalsDefaults() {
        // When
        LfsSettings lfs = ProxyConfig.from(enabled()).lfs().orElseThrow();
        // Then
        assertEquals("media", lfs.s3().bucket());
        assertEquals("default", lfs.namespace());
        assertEquals(5L * 1024 * 1024 * 1024, lfs.maxBlobSize());
        assertEquals(5 * 1024 * 1024, lfs.chunkSize());
        assertEquals(ChecksumAlg.SHA256, lfs.defaultChecksum());
        assertEquals(Duration.ofSeconds(120), lfs.downloadTtl());
        assertEquals(8080, lfs.http().address().getPort());
        assertFalse(lfs.s3().forcePathStyle(), "path style only with a custom endpoint");
        assertFalse(lfs.presignEnabled());
        assertEquals(6, lfs.publish().connectAttempts());
        assertTrue(lfs.tracker().enabled());
        assertEquals("__lfs_ops_state", lfs.tracker().topic());
    }

    @Test
    void crossOriginAccessIsOffUnlessOriginsAreListed() {
        // Given
        Map<String, String> env = enabled();
        assertEquals(List.of(), ProxyConfig.from(env).lfs().orElseThrow().http().allowedOrigins());
        // When
        env.put(LfsConfig.HTTP_ALLOWED_ORIGINS, "https://app.example.com, https://ops.example.com");
        // Then
        assertEquals(List.of("https://app.example.com", "https://ops.example.com"),
                ProxyConfig.from(env).lfs().orElseThrow().http().allowedOrigins());
    }

    @Test
    void trustedProxiesAreNoneUnlessListedAndABadBlockStopsStartUpNamingTheSetting() throws Exception {
        // Given
        Map<String, String> env = enabled();
        assertTrue(ProxyConfig.from(env).lfs().orElseThrow().http().trustedProxies().isEmpty());
        // When
        env.put(LfsConfig.TRUSTED_PROXIES, "10.0.0.0/8, fd00::/8");
        // Then
        var trusted = ProxyConfig.from(env).lfs().orElseThrow().http().trustedProxies();
        assertTrue(trusted.contains(java.net.InetAddress.getByName("10.1.2.3")));
        assertFalse(trusted.contains(java.net.InetAddress.getByName("127.0.0.1")));
        env.put(LfsConfig.TRUSTED_PROXIES, "10.0.0.0/8, lb.example.com");
        ConfigException refused = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(refused.getMessage().startsWith(LfsConfig.TRUSTED_PROXIES + ": 'lb.example.com'"),
                refused.getMessage());
    }

    @Test
    void proxyProtocolOnTheLfsListenerIsItsOwnSetting() {
        // Given
        Map<String, String> env = enabled();
        env.put(ProxyConfig.ACCEPT_PROXY_PROTOCOL, "required");
        assertEquals(ProxyProtocolMode.OFF, ProxyConfig.from(env).lfs().orElseThrow().http().proxyProtocol());
        // When
        env.put(LfsConfig.HTTP_ACCEPT_PROXY_PROTOCOL, "optional");
        // Then
        assertEquals(ProxyProtocolMode.OPTIONAL, ProxyConfig.from(env).lfs().orElseThrow().http().proxyProtocol());
    }

    @Test
    void customEndpointTurnsOnPathStyle() {
        Map<String, String> env = enabled();
        env.put(LfsConfig.S3_ENDPOINT, "http://minio:9000");
        LfsSettings lfs = ProxyConfig.from(env).lfs().orElseThrow();
        assertEquals(Optional.of(URI.create("http://minio:9000")), lfs.s3().endpoint());
        assertTrue(lfs.s3().forcePathStyle());
    }

    @Test
    void enabledWithoutHttpAddressLeavesTheApiOff() {
        Map<String, String> env = enabled();
        env.remove(LfsConfig.HTTP_ADDR);
        assertTrue(ProxyConfig.from(env).lfs().isEmpty());
    }

    @Test
    void missingBucketStopsStartUpNamingIt() {
        Map<String, String> env = enabled();
        env.remove(LfsConfig.S3_BUCKET);
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().contains(LfsConfig.S3_BUCKET), e.getMessage());
    }

    @Test
    void exampleBucketNamesAreRefused() {
        for (String blocked : new String[] {"kafscale-lfs", "kafscale-lfs-dev", "kafscale-lfs-staging",
            "kafscale-example"}) {
            Map<String, String> env = enabled();
            env.put(LfsConfig.S3_BUCKET, blocked);
            ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
            assertTrue(e.getMessage().startsWith(LfsConfig.S3_BUCKET + "=" + blocked + " is invalid"), e.getMessage());
        }
    }

    @Test
    void badValuesStopStartUpNamingKeyValueAndWhatIsAllowed() {
        assertInvalid(LfsConfig.CHECKSUM_ALGO, "sha1", "sha256, md5, crc32 or none");
        assertInvalid(LfsConfig.CHUNK_SIZE, "1024", "whole number");
        assertInvalid(LfsConfig.PRESIGN_ENABLED, "maybe", "true or false");
        assertInvalid(LfsConfig.S3_ENDPOINT, "minio:9000", "http://");
        assertInvalid(LfsConfig.HTTP_ADDR, "nowhere", "host:port");
        assertInvalid(LfsConfig.TEMP_DIR, "/does/not/exist", "writable directory");
    }

    @Test
    void tlsWithoutCertificateStopsStartUp() {
        Map<String, String> env = enabled();
        env.put(LfsConfig.HTTP_TLS_ENABLED, "true");
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));
        assertTrue(e.getMessage().contains(LfsConfig.HTTP_TLS_CERT_FILE), e.getMessage());
    }

    private static void assertInvalid(String key, String value, String allowed) {
        Map<String, String> env = enabled();
        env.put(key, value);
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env), key);
        assertTrue(e.getMessage().startsWith(key + "=" + value + " is invalid"), e.getMessage());
        assertTrue(e.getMessage().contains(allowed), e.getMessage());
    }
}
