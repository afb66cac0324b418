package org.kafscale.proxy.lfs.http;

import java.util.regex.Pattern;

/**
 * Topic names the HTTP API accepts: 1 to {@code maxLength} characters of {@code [a-zA-Z0-9._-]},
 * not {@code .} or {@code ..} (Kafka forbids them, and the name is a segment of every object key),
 * and not an internal topic ({@code __} prefix, such as {@code __consumer_offsets} or the
 * tracker's {@code __lfs_ops_state}): envelopes written there would corrupt what reads them.
 */
public final class LfsTopicNames {
    private static final Pattern VALID = Pattern.compile("^[a-zA-Z0-9._-]+$");
    private static final String INTERNAL_PREFIX = "__";
    private final int maxLength;

    public LfsTopicNames(int maxLength) {
        this.maxLength = maxLength;
    }

    public boolean valid(String topic) {
        return topic != null && !topic.isEmpty() && topic.length() <= maxLength && VALID.matcher(topic).matches()
                && !topic.equals(".") && !topic.equals("..");
    }

    /** Throws 400 {@code missing_topic} or {@code invalid_topic}. */
    public void check(String topic) {
        if (topic == null || topic.isEmpty()) {
            throw LfsException.badRequest("missing_topic", "topic is required");
        }
        if (!valid(topic)) {
            throw LfsException.badRequest("invalid_topic", "invalid topic name");
        }
        if (topic.startsWith(INTERNAL_PREFIX)) {
            throw LfsException.badRequest("invalid_topic", "internal topics (" + INTERNAL_PREFIX + "*) are not writable");
        }
    }
}
