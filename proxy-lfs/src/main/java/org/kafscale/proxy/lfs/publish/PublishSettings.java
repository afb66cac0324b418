package org.kafscale.proxy.lfs.publish;

import java.time.Duration;

/**
 * How the envelope publisher talks to brokers.
 *
 * @param connectAttempts broker connect attempts before giving up (KAFSCALE_LFS_PROXY_BACKEND_RETRIES, at least 1)
 * @param backoff pause between connect attempts (KAFSCALE_LFS_PROXY_BACKEND_BACKOFF_MS)
 * @param produceTimeout the Produce request's timeout_ms, the broker's time to reach acks=all
 * @param maxBrokers brokers tried at most when they answer "not the leader" (3, as KafScale)
 */
public record PublishSettings(int connectAttempts, Duration backoff, Duration produceTimeout, int maxBrokers) {
    public static final int DEFAULT_MAX_BROKERS = 3;

    public PublishSettings {
        connectAttempts = Math.max(1, connectAttempts);
        maxBrokers = Math.max(1, maxBrokers);
    }
}
