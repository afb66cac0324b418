package org.kafscale.proxy.core.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * One client request: its parsed header and the frame it came in (size prefix excluded).
 *
 * <p>The body stays undecoded bytes until a router asks for it. The frame buffer is owned by
 * this value: whoever consumes the request releases it, once.
 *
 * @param apiKey the raw API key; may be one kafka-clients does not know
 * @param apiVersion the requested version
 * @param correlationId the client's correlation id
 * @param clientId the client id from the header (null when the client sent none)
 * @param headerLength bytes of the request header at the start of {@code frame}
 * @param frame header and body, exactly as the client sent them
 */
public record RequestFrame(short apiKey, short apiVersion, int correlationId, String clientId,
                           int headerLength, ByteBuf frame) {

    /** Offset of the correlation id in every request header version. */
    public static final int CORRELATION_ID_OFFSET = 4;

    /** The API this request belongs to, or empty for a key kafka-clients does not know. */
    public Optional<ApiKeys> knownApi() {
        return ApiKeys.hasId(apiKey) ? Optional.of(ApiKeys.forId(apiKey)) : Optional.empty();
    }

    public boolean isApi(ApiKeys api) {
        return apiKey == api.id;
    }

    /** A view of the body (no copy), positioned at its first byte. */
    public ByteBuffer body() {
        return frame.nioBuffer(frame.readerIndex() + headerLength, frame.readableBytes() - headerLength);
    }

    /**
     * Decodes the body into kafka-clients' request wrapper, for the codec's own use (error answers).
     * Record batches inside it stay views of the frame, so the decoded request must not outlive
     * {@link #frame()}.
     *
     * @throws RuntimeException (Kafka's SchemaException and friends) when the body does not parse
     */
    AbstractRequest decodeBody() {
        ApiKeys api = knownApi().orElseThrow(() -> new IllegalStateException("unknown API key " + apiKey));
        ByteBuffer view = ParseViews.of(frame, frame.readerIndex() + headerLength, frame.readableBytes() - headerLength);
        return AbstractRequest.parseRequest(api, apiVersion, new ByteBufferAccessor(view)).request;
    }

    /**
     * The body as kafka-clients' generated class for it ({@code MetadataRequestData} for a
     * Metadata request, {@link ApiMessage} for any); like {@link #decodeBody()}, record batches
     * inside it are views of the frame.
     *
     * @throws RuntimeException when the body does not parse
     * @throws ClassCastException when {@code type} is not the class of this request's body
     */
    public <T extends ApiMessage> T decodeBody(Class<T> type) {
        return type.cast(decodeBody().data());
    }

    /** A short description for log lines. */
    public String describe() {
        String api = knownApi().map(a -> a.name).orElse("unknown");
        return api + "(key " + apiKey + ") v" + apiVersion + " correlation " + correlationId;
    }
}
