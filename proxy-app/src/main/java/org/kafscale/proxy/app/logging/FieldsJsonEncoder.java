package org.kafscale.proxy.app.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.JsonEscapeUtil;
import java.util.List;
import org.slf4j.event.KeyValuePair;

/**
 * Logback's JSON encoder with a line's key-values as fields of its object ({@code "conn":"c1f"})
 * instead of Logback's {@code "kvpList":[{"conn":"c1f"}]}: a log pipeline then indexes and
 * filters on them without unpacking a list. The keys are the proxy's own (docs/operations.md);
 * none of them is one of the encoder's own field names.
 */
final class FieldsJsonEncoder extends JsonEncoder {
    @Override
    protected void appendKeyValuePairs(StringBuilder json, ILoggingEvent event) {
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        if (pairs == null) {
            return;
        }
        for (KeyValuePair pair : pairs) {
            json.append(',');
            appenderMember(json, JsonEscapeUtil.jsonEscapeString(pair.key),
                    JsonEscapeUtil.jsonEscapeString(String.valueOf(pair.value)));
        }
    }
}
