package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.limits.LfsLimits;

/** The LFS limits as configured: production defaults, the values set, and bounds that could never admit anything. */
class LfsLimitsConfigTest {

    private static Map<String, String> enabled() {
        return LfsConfigTest.enabled();
    }

    private static LfsLimits limits(Map<String, String> env) {
        return ProxyConfig.from(env).lfs().orElseThrow().limits();
    }

    @Test
    void unsetLimitsAreTheProductionDefaults() {
        assertEquals(LfsLimits.defaults(), limits(enabled()));
    }

    @Test
    void everyLimitIsReadFromItsSetting() {
        // Given
        Map<String, String> env = enabled();
        env.put(LfsConfig.IO_THREADS, "3");
        env.put(LfsConfig.MAX_UPLOADS, "40");
        env.put(LfsConfig.MAX_UPLOADS_PER_CLIENT, "5");
        env.put(LfsConfig.UPLOAD_MIN_BYTES_PER_SEC, "1000");
        env.put(LfsConfig.UPLOAD_RATE_WINDOW_SEC, "7");
        env.put(LfsConfig.MAX_DOWNLOADS, "6");
        env.put(LfsConfig.MAX_BLOB_SIZE, "1000000");
        env.put(LfsConfig.DOWNLOAD_TEMP_BYTES, "2000000");

        // When
        LfsLimits limits = limits(env);

        // Then
        assertEquals(new LfsLimits(3, 40, 5, 1000, Duration.ofSeconds(7), 6, 2_000_000), limits);
        assertEquals(40 + 6 + LfsLimits.S3_RESERVE, limits.s3Connections());
    }

    @Test
    void aPerClientBoundAboveTheTotalIsRefused() {
        Map<String, String> env = enabled();
        env.put(LfsConfig.MAX_UPLOADS, "10");
        env.put(LfsConfig.MAX_UPLOADS_PER_CLIENT, "11");

        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));

        assertTrue(e.getMessage().contains(LfsConfig.MAX_UPLOADS_PER_CLIENT), e.getMessage());
    }

    @Test
    void aTempBudgetBelowTheLargestPayloadIsRefused() {
        Map<String, String> env = enabled();
        env.put(LfsConfig.MAX_BLOB_SIZE, "1000000");
        env.put(LfsConfig.DOWNLOAD_TEMP_BYTES, "999999");

        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env));

        assertTrue(e.getMessage().contains(LfsConfig.DOWNLOAD_TEMP_BYTES), e.getMessage());
    }
}
