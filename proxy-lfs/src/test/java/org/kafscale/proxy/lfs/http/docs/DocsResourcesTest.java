package org.kafscale.proxy.lfs.http.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DocsResourcesTest {
    private final ExecutorService blocking = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        blocking.shutdownNow();
        blocking.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void namesTheWebjarDoesNotShipAreNotFoundAndNotKept() throws Exception {
        // Given
        DocsResources resources = new DocsResources(blocking);

        // When: many distinct names the webjar does not have (the review's probe used 8000 characters)
        for (int i = 0; i < 2000; i++) {
            assertTrue(resources.webjarFile(i + "z".repeat(8000)).get(10, TimeUnit.SECONDS).isEmpty());
        }

        // Then nothing was kept for them
        assertEquals(0, resources.cachedCount());
    }

    @Test
    void aShippedFileIsServedAndKeptOnce() throws Exception {
        // Given
        DocsResources resources = new DocsResources(blocking);

        // When
        byte[] first = resources.webjarFile("swagger-ui-bundle.js").get(10, TimeUnit.SECONDS).orElseThrow();
        byte[] second = resources.webjarFile("swagger-ui-bundle.js").get(10, TimeUnit.SECONDS).orElseThrow();

        // Then
        assertTrue(first.length > 100_000);
        assertTrue(first == second, "served from memory the second time");
        assertEquals(1, resources.cachedCount());
    }
}
