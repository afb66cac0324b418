package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes a header and body with kafka-clients' generated classes into a Netty buffer (no size
 * prefix: the channel's prepender writes it). Record sets that are views of {@code owners}
 * become slices of them, not copies.
 */
public final class MessageEncoder {
    private MessageEncoder() {
    }

    public static ByteBuf encode(Message header, short headerVersion, Message body, short version, List<ByteBuf> owners) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        header.size(cache, headerVersion);
        body.size(cache, version);
        ByteBufWritable writable = new ByteBufWritable(ByteBufAllocator.DEFAULT, owners);
        try {
            header.write(writable, cache, headerVersion);
            body.write(writable, cache, version);
            return writable.finish();
        } catch (RuntimeException e) {
            writable.discard();
            throw e;
        }
    }
}
