package org.kafscale.proxy.core.logging;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Key-values that a log line carries besides its message (SLF4J 2 key-value pairs): the JSON log
 * format shows them as fields, the plain one as {@code key=value}, so a line can be found by what
 * it is about rather than by parsing its words.
 */
@FunctionalInterface
public interface LogFields {
    /** No fields: the line is about no one connection. */
    LogFields NONE = event -> event;

    /**
     * Where a client channel keeps its connection's fields, for the handlers in front of the
     * connection's own (frame and header decoders) whose lines are about the same connection.
     */
    AttributeKey<LogFields> OF_CHANNEL = AttributeKey.valueOf(LogFields.class, "connection");

    /** The fields of the connection {@code channel} carries; none for a channel that is not a client's. */
    static LogFields of(Channel channel) {
        LogFields fields = channel.attr(OF_CHANNEL).get();
        return fields != null ? fields : NONE;
    }

    /** Adds the fields to {@code event}; returns it, so calls chain. */
    LoggingEventBuilder addTo(LoggingEventBuilder event);
}
