package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/** Kafka's rules for topic names, so the proxy refuses a bad name exactly as a broker does. */
public final class TopicNames {
    private TopicNames() {
    }

    /**
     * Whether a broker would accept {@code name} as a topic name (non-empty, at most 249
     * characters, only {@code [a-zA-Z0-9._-]}, not "." or ".."); a broker answers a Metadata or
     * auto-creation naming any other with INVALID_TOPIC_EXCEPTION.
     */
    public static boolean isValid(String name) {
        try {
            Topic.validate(name);
            return true;
        } catch (InvalidTopicException e) {
            return false;
        }
    }
}
