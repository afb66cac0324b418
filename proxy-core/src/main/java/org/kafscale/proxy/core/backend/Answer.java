package org.kafscale.proxy.core.backend;

import io.netty.buffer.ByteBuf;

/**
 * A broker's answer: the frame as it came (header and body; the owner releases it) and its body
 * parsed with kafka-clients' generated classes. Record sets in {@code body} are views of
 * {@code frame}, valid while the frame is.
 */
public record Answer<T>(ByteBuf frame, T body) {
}
