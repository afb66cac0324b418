package org.kafscale.proxy.lfs.http;

import java.util.regex.Pattern;

/** Topic names the HTTP API accepts: 1 to {@code maxLength} characters of {@code [a-zA-Z0-9._-]}. */
public final class TopicNames {
    private static final Pattern VALID = Pattern.compile("^[a-zA-Z0-9._-]+$");
    private final int maxLength;

    public TopicNames(int maxLength) {
        this.maxLength = maxLength;
    }

    public boolean valid(String topic) {
        return topic != null && !topic.isEmpty() && topic.length() <= maxLength && VALID.matcher(topic).matches();
    }

    /** Throws 400 {@code missing_topic} or {@code invalid_topic}. */
    public void check(String topic) {
        if (topic == null || topic.isEmpty()) {
            throw LfsException.badRequest("missing_topic", "topic is required");
        }
        if (!valid(topic)) {
            throw LfsException.badRequest("invalid_topic", "invalid topic name");
        }
    }
}
