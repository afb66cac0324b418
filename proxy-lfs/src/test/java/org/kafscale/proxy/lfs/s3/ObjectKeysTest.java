package org.kafscale.proxy.lfs.s3;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.http.LfsException;

class ObjectKeysTest {
    private final ObjectKeys keys = new ObjectKeys("prod", Clock.fixed(Instant.parse("2026-02-05T23:59:59Z"),
            ZoneOffset.ofHours(5)));

    @Test
    void newKeyIsNamespaceTopicLfsUtcDateAndUuid() {
        String key = keys.newKey("video-uploads");
        assertTrue(key.matches("prod/video-uploads/lfs/2026/02/05/obj-[0-9a-f-]{36}"), key);
    }

    @Test
    void downloadKeysMustBeLfsObjectsOfTheNamespace() {
        assertDoesNotThrow(() -> keys.checkDownloadKey("prod/t/lfs/2026/02/05/obj-1"));
        for (String bad : new String[] {"/prod/t/lfs/x", "prod/../t/lfs/x", "dev/t/lfs/x", "prod/t/blobs/x"}) {
            assertEquals("invalid_key", assertThrows(LfsException.class, () -> keys.checkDownloadKey(bad)).code(), bad);
        }
    }
}
