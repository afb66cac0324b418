package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The connection limit that keeps the headroom free below the process's descriptor limit. */
class FileDescriptorsTest {

    @Test
    void lowFdLimitLowersTheConnectionLimitToLeaveTheHeadroomFree() {
        // Given the security review's P3: ulimit -n 1024, and the defaults
        // When the limit is worked out
        int limit = FileDescriptors.connectionLimit(10_000, 512, OptionalLong.of(1024));

        // Then clients and their broker channels fit below 1024 - 512
        assertEquals(256, limit);
    }

    @Test
    void highFdLimitKeepsTheConfiguredLimit() {
        // Given a container's usual limit of 1048576 descriptors
        // When the limit is worked out
        int limit = FileDescriptors.connectionLimit(10_000, 512, OptionalLong.of(1_048_576));

        // Then the configured limit holds
        assertEquals(10_000, limit);
    }

    @Test
    void unknownFdLimitKeepsTheConfiguredLimit() {
        // Given a platform that does not report its descriptor limit
        // When the limit is worked out
        int limit = FileDescriptors.connectionLimit(10_000, 512, OptionalLong.empty());

        // Then the configured limit holds
        assertEquals(10_000, limit);
    }

    @Test
    void thisProcessReportsItsLimit() {
        // Given this JVM on a Unix-like system
        // When its limit is read
        long limit = FileDescriptors.limit().orElse(1);

        // Then it is a positive count
        assertTrue(limit > 0);
    }
}
