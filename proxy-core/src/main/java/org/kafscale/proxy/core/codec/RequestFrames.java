package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes requests the proxy rewrites, with kafka-clients' generated classes, keeping the
 * client's header fields. The result has no size prefix: the channel's prepender writes it.
 */
public final class RequestFrames {
    private RequestFrames() {
    }

    /**
     * A frame carrying {@code body} in place of the original's, with the original's header.
     * Record sets in {@code body} that are views of the original frame become slices of it.
     */
    public static ByteBuf reencode(RequestFrame original, ApiMessage body) {
        ApiKeys api = ApiKeys.forId(original.apiKey());
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(original.apiKey())
                .setRequestApiVersion(original.apiVersion())
                .setCorrelationId(original.correlationId())
                .setClientId(original.clientId());
        return MessageEncoder.encode(header, api.requestHeaderVersion(original.apiVersion()), body,
                original.apiVersion(), List.of(original.frame()));
    }

    /**
     * The request {@code original} would be with {@code body} in place of its own: a new frame
     * (owned by the caller, who releases it) that handlers take as they take the client's.
     */
    public static RequestFrame withBody(RequestFrame original, ApiMessage body) {
        ByteBuf frame = reencode(original, body);
        int bodyBytes = body.size(new ObjectSerializationCache(), original.apiVersion());
        // The body is known: whoever reads this request gets it without parsing the new frame.
        return RequestFrame.encodedFrom(original, frame.readableBytes() - bodyBytes, frame, body);
    }
}
