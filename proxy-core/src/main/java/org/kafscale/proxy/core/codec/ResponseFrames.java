package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Encodes answers the proxy builds itself, with kafka-clients' generated classes: response header
 * (at the version the API and request version call for) and body, without the size prefix.
 */
public final class ResponseFrames {
    private ResponseFrames() {
    }

    /** Encodes {@code body} as the answer to {@code request}. */
    public static ByteBuf encode(RequestFrame request, ApiMessage body) {
        return encode(ApiKeys.forId(request.apiKey()), request.apiVersion(), request.correlationId(), body);
    }

    public static ByteBuf encode(ApiKeys api, short version, int correlationId, ApiMessage body) {
        return encode(api, version, correlationId, body, List.of());
    }

    /**
     * Encodes an answer whose record sets are views of {@code owners} (brokers' answer frames):
     * they become slices of those frames, not copies.
     */
    public static ByteBuf encode(ApiKeys api, short version, int correlationId, ApiMessage body, List<ByteBuf> owners) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        return MessageEncoder.encode(header, api.responseHeaderVersion(version), body, version, owners);
    }

    /**
     * The body of a broker's answer frame (header and body, no size prefix), positioned after the
     * response header, for kafka-clients' generated classes to read at once: the view is reused by
     * the next parse of the same buffer ({@code ParseViews}); what the parse takes from it (record
     * sets) stays valid while the frame is.
     */
    public static ByteBufferAccessor body(ApiKeys api, short version, ByteBuf frame) {
        ByteBuffer view = ParseViews.readable(frame);
        ResponseHeader.parse(view, api.responseHeaderVersion(version));
        return new ByteBufferAccessor(view);
    }

    /**
     * The body of an answer frame (header and body, no size prefix) as kafka-clients' generated
     * class for it; record sets inside are views of the frame (or of a copy, for a frame in parts).
     *
     * @throws RuntimeException when the body does not parse
     */
    public static ApiMessage decode(ApiKeys api, short version, ByteBuf frame) {
        return AbstractResponse.parseResponse(api, body(api, version, frame), version).data();
    }

    /**
     * Kafka's own count of each error in an answer body ({@link #body} positioned it), every part
     * of the answer included: which errors a broker's answer carries, without knowing its shape.
     *
     * @throws RuntimeException when the body does not parse
     */
    public static Map<Errors, Integer> errorCounts(ApiKeys api, short version, ByteBufferAccessor body) {
        return AbstractResponse.parseResponse(api, body, version).errorCounts();
    }

    /**
     * Kafka's own error answer for a request ({@code AbstractRequest.getErrorResponse}), at the
     * client's version.
     *
     * @throws RuntimeException when the body does not parse or the key is unknown: no answer exists
     */
    public static ByteBuf errorResponse(RequestFrame request, Errors error) {
        AbstractResponse response = request.decodeBody().getErrorResponse(0, error.exception());
        return encode(request, response.data());
    }

    /** The same, the answer's error message {@code message} (where its body has one) instead of the error's own. */
    public static ByteBuf errorResponse(RequestFrame request, Errors error, String message) {
        AbstractResponse response = request.decodeBody().getErrorResponse(0, error.exception(message));
        return encode(request, response.data());
    }
}
