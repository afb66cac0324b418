package org.kafscale.proxy.core.testing;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.event.KeyValuePair;

/** What tests read of captured log lines. */
public final class LogLines {
    private LogLines() {
    }

    /** The key-values {@code line} carries (a connection's fields), in the order they were added; none for none. */
    public static Map<String, Object> fields(ILoggingEvent line) {
        Map<String, Object> fields = new LinkedHashMap<>();
        if (line.getKeyValuePairs() != null) {
            for (KeyValuePair pair : line.getKeyValuePairs()) {
                fields.put(pair.key, pair.value);
            }
        }
        return fields;
    }
}
