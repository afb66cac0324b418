package org.kafscale.proxy.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.rewrite.OffloadSettings;

/** KAFSCALE_LFS_PROXY_OFFLOAD_*: which topics' large records go to S3, and what start-up refuses. */
class LfsOffloadConfigTest {

    @Test
    void offloadIsOffUnlessTopicsAreSet() {
        OffloadSettings offload = ProxyConfig.from(LfsConfigTest.enabled()).lfs().orElseThrow().offload();
        assertFalse(offload.isOn());
        assertEquals(1024 * 1024, offload.thresholdBytes());
    }

    @Test
    void topicPatternsAreRegularExpressionsOverTheWholeName() {
        // Given
        Map<String, String> env = LfsConfigTest.enabled();
        env.put(LfsConfig.OFFLOAD_TOPICS, "media\\..*, uploads ,");
        env.put(LfsConfig.OFFLOAD_THRESHOLD_BYTES, "65536");
        // When
        OffloadSettings offload = ProxyConfig.from(env).lfs().orElseThrow().offload();
        // Then
        assertTrue(offload.appliesTo("media.video"));
        assertTrue(offload.appliesTo("uploads"));
        assertFalse(offload.appliesTo("media"));
        assertFalse(offload.appliesTo("more-uploads"));
        assertEquals(65536, offload.thresholdBytes());
    }

    @Test
    void aBadRegularExpressionStopsStartUpNamingTheSetting() {
        assertInvalid(Map.of(LfsConfig.OFFLOAD_TOPICS, "media,[unclosed"), LfsConfig.OFFLOAD_TOPICS,
                "`[unclosed` is not one");
    }

    @Test
    void aThresholdOutOfRangeStopsStartUpNamingTheSetting() {
        assertInvalid(Map.of(LfsConfig.OFFLOAD_TOPICS, "media", LfsConfig.OFFLOAD_THRESHOLD_BYTES, "10"),
                LfsConfig.OFFLOAD_THRESHOLD_BYTES, "1024");
    }

    @Test
    void aThresholdNoFrameCouldPassStopsStartUpNamingTheFrameLimit() {
        assertInvalid(Map.of(LfsConfig.OFFLOAD_TOPICS, "media", ProxyConfig.MAX_FRAME_BYTES, "1048576",
                LfsConfig.OFFLOAD_THRESHOLD_BYTES, "1048576"), LfsConfig.OFFLOAD_THRESHOLD_BYTES,
                ProxyConfig.MAX_FRAME_BYTES);
    }

    @Test
    void aThresholdAtTheLargestPayloadStopsStartUpNamingIt() {
        assertInvalid(Map.of(LfsConfig.OFFLOAD_TOPICS, "media", LfsConfig.MAX_BLOB_SIZE, "2048",
                LfsConfig.OFFLOAD_THRESHOLD_BYTES, "4096"), LfsConfig.OFFLOAD_THRESHOLD_BYTES, LfsConfig.MAX_BLOB_SIZE);
    }

    private static void assertInvalid(Map<String, String> settings, String key, String allowed) {
        Map<String, String> env = LfsConfigTest.enabled();
        env.putAll(settings);
        ConfigException e = assertThrows(ConfigException.class, () -> ProxyConfig.from(env), key);
        assertTrue(e.getMessage().startsWith(key + "="), e.getMessage());
        assertTrue(e.getMessage().contains(allowed), e.getMessage());
    }
}
