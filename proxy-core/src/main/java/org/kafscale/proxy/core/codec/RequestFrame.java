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
 * <p>The body stays undecoded bytes until a policy or router asks for it, and is then parsed once:
 * every later {@link #decodeBody} of this request (authorization, routing, the topology check, an
 * error answer) gets the same message. That message is mutable and shared: whoever changes it in
 * place must send the request on as a replaced body ({@link RequestFrames#withBody}), never leave
 * it changed behind the client's bytes. The frame buffer is owned by this value: whoever consumes
 * the request releases it, once; the parsed message holds views of the frame's record bytes, so
 * neither it nor this value may be used after that release (a decode then fails instead of
 * reading freed memory).
 *
 * <p>Confined to the connection's event loop, like everything else of a request.
 */
public final class RequestFrame {
    /** Offset of the correlation id in every request header version. */
    public static final int CORRELATION_ID_OFFSET = 4;

    private final short apiKey;
    private final short apiVersion;
    private final int correlationId;
    private final String clientId;
    private final int headerLength;
    private final ByteBuf frame;
    /** The body parsed from {@link #frame}, once asked for; null until then. */
    private ApiMessage body;
    /** kafka-clients' wrapper of {@link #body}, for error answers; null until a parse made it. */
    private AbstractRequest request;
    private int bodyParses;

    /**
     * @param apiKey the raw API key; may be one kafka-clients does not know
     * @param apiVersion the requested version
     * @param correlationId the client's correlation id
     * @param clientId the client id from the header (null when the client sent none)
     * @param headerLength bytes of the request header at the start of {@code frame}
     * @param frame header and body, exactly as the client sent them
     */
    public RequestFrame(short apiKey, short apiVersion, int correlationId, String clientId, int headerLength,
                        ByteBuf frame) {
        this.apiKey = apiKey;
        this.apiVersion = apiVersion;
        this.correlationId = correlationId;
        this.clientId = clientId;
        this.headerLength = headerLength;
        this.frame = frame;
    }

    /**
     * A frame whose body is already known as {@code body} (the proxy encoded the frame from it):
     * asking for the body returns it without a parse.
     */
    static RequestFrame encodedFrom(RequestFrame original, int headerLength, ByteBuf frame, ApiMessage body) {
        RequestFrame encoded = new RequestFrame(original.apiKey, original.apiVersion, original.correlationId,
                original.clientId, headerLength, frame);
        encoded.body = body;
        return encoded;
    }

    public short apiKey() {
        return apiKey;
    }

    public short apiVersion() {
        return apiVersion;
    }

    public int correlationId() {
        return correlationId;
    }

    /** The client id from the header (null when the client sent none). */
    public String clientId() {
        return clientId;
    }

    /** Bytes of the request header at the start of {@link #frame()}. */
    public int headerLength() {
        return headerLength;
    }

    /** Header and body, exactly as they go to a broker that gets this request whole. */
    public ByteBuf frame() {
        return frame;
    }

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
     * The body in kafka-clients' request wrapper, for the codec's own use (error answers); parsed
     * on the first call of any {@code decodeBody}, the same value after. Record batches inside it
     * stay views of the frame, so it must not outlive {@link #frame()}.
     *
     * @throws RuntimeException (Kafka's SchemaException and friends) when the body does not parse
     */
    AbstractRequest decodeBody() {
        checkNotReleased();
        if (request == null) {
            parse();
        }
        return request;
    }

    /**
     * The body as kafka-clients' generated class for it ({@code MetadataRequestData} for a
     * Metadata request, {@link ApiMessage} for any), parsed on the first call and the same message
     * after; like {@link #decodeBody()}, record batches inside it are views of the frame.
     *
     * @throws RuntimeException when the body does not parse (again on every call: a body that
     *         does not parse is not remembered)
     * @throws ClassCastException when {@code type} is not the class of this request's body
     */
    public <T extends ApiMessage> T decodeBody(Class<T> type) {
        checkNotReleased();
        if (body == null) {
            parse();
        }
        return type.cast(body);
    }

    /**
     * Whether the body is parsed already: a policy read it, or the proxy encoded the frame from it.
     * A route that could forward the client's bytes unread takes its decoded path then, since the
     * parse is paid for and the body may be a policy's replacement.
     */
    public boolean bodyDecoded() {
        return body != null;
    }

    /**
     * How many times this frame's body was parsed: at most once whatever asks for it (the
     * parse-count tests read it).
     */
    public int bodyParses() {
        return bodyParses;
    }

    private void checkNotReleased() {
        if (frame.refCnt() == 0) {
            // The parsed records are views of the frame: freed (or reused) memory by now.
            throw new IllegalStateException(describe() + " was read after its frame was released");
        }
    }

    private void parse() {
        ApiKeys api = knownApi().orElseThrow(() -> new IllegalStateException("unknown API key " + apiKey));
        bodyParses++;
        ByteBuffer view = ParseViews.of(frame, frame.readerIndex() + headerLength, frame.readableBytes() - headerLength);
        AbstractRequest parsed = AbstractRequest.parseRequest(api, apiVersion, new ByteBufferAccessor(view)).request;
        request = parsed;
        if (body == null) {
            body = parsed.data();
        }
        // else the body was known from its encoding and the wrapper is wanted for an error answer
        // only: the known message stays the body.
    }

    /** A short description for log lines. */
    public String describe() {
        String api = knownApi().map(a -> a.name).orElse("unknown");
        return api + "(key " + apiKey + ") v" + apiVersion + " correlation " + correlationId;
    }

    @Override
    public String toString() {
        return "RequestFrame[" + describe() + ", clientId=" + clientId + ", headerLength=" + headerLength + "]";
    }
}
