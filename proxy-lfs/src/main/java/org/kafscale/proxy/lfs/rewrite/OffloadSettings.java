package org.kafscale.proxy.lfs.rewrite;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which Produce records the Kafka listener offloads to S3 by size, with no {@code LFS_BLOB}
 * header: a value of more than {@code thresholdBytes} on a topic whose whole name one of
 * {@code topics} matches. Lets a plain Kafka client produce records far larger than its brokers
 * accept, the brokers storing only envelopes.
 *
 * @param topics regular expressions, each matched against the whole topic name; empty for off
 * @param thresholdBytes a value longer than this is offloaded; one of this length or shorter is not
 */
public record OffloadSettings(List<Pattern> topics, long thresholdBytes) {
    /** 1 MiB: a broker's default {@code message.max.bytes} is about this, so smaller records fit as they are. */
    public static final long DEFAULT_THRESHOLD_BYTES = 1024 * 1024;
    /** Offloads nothing. */
    public static final OffloadSettings OFF = new OffloadSettings(List.of(), DEFAULT_THRESHOLD_BYTES);

    public OffloadSettings {
        topics = List.copyOf(topics);
        if (thresholdBytes < 0) {
            throw new IllegalArgumentException("offload threshold must not be negative: " + thresholdBytes);
        }
    }

    /** Whether any topic is offloaded. */
    public boolean isOn() {
        return !topics.isEmpty();
    }

    /** Whether records of {@code topic} are offloaded when large enough. */
    public boolean appliesTo(String topic) {
        if (topic == null) {
            return false;
        }
        for (Pattern pattern : topics) {
            if (pattern.matcher(topic).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Whether a value of {@code length} bytes is large enough to be offloaded. */
    public boolean exceeds(long length) {
        return length > thresholdBytes;
    }
}
