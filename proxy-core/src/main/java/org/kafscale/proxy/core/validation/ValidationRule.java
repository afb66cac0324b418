package org.kafscale.proxy.core.validation;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the records of the topics a pattern matches must be: a format for keys, one for values,
 * or both. A record without a key (or value) is not checked on that side: a tombstone stays legal.
 *
 * @param topics matches the whole topic name (the client's own name in a virtual cluster's rule)
 * @param key the keys' format, or null for keys as they come
 * @param value the values' format, or null for values as they come
 */
public record ValidationRule(Pattern topics, RecordFormat key, RecordFormat value) {
    public ValidationRule {
        Objects.requireNonNull(topics, "topics");
        if (key == null && value == null) {
            throw new IllegalArgumentException("a rule checks keys, values or both");
        }
    }

    boolean covers(String topic) {
        return topics.matcher(topic).matches();
    }
}
