package org.kafscale.proxy.lfs;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Presigned URLs let anyone holding one read the object without the proxy's integrity check, so
 * while they are enabled a warning is logged at start-up and every five minutes (spec §1.4).
 */
final class PresignWarning {
    private static final Logger LOGGER = LoggerFactory.getLogger(PresignWarning.class);
    private static final long PERIOD_MINUTES = 5;

    private PresignWarning() {
    }

    static void schedule(ScheduledExecutorService scheduler) {
        scheduler.scheduleAtFixedRate(() -> LOGGER.warn("LFS presigned downloads are enabled: clients must verify "
                + "the bytes themselves"), 0, PERIOD_MINUTES, TimeUnit.MINUTES);
    }
}
