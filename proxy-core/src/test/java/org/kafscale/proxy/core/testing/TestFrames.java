package org.kafscale.proxy.core.testing;

import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestUtils;
import org.kafscale.proxy.core.codec.RequestFrame;

/** Request frames with a correct header and any body, for tests (fuzz targets) that send bytes no client would. */
public final class TestFrames {
    private TestFrames() {
    }

    /** A well-formed request frame (size prefix excluded) for {@code body} at {@code version}. */
    public static ByteBuffer request(ApiMessage body, short version, int correlationId) {
        ApiKeys api = ApiKeys.forId(body.apiKey());
        return RequestUtils.serialize(header(api, version, correlationId), api.requestHeaderVersion(version), body, version);
    }

    /**
     * A request frame (size prefix excluded): the header {@code api} has at {@code version}, then
     * {@code body} exactly as given.
     */
    public static ByteBuffer request(ApiKeys api, short version, int correlationId, byte[] body) {
        RequestHeaderData header = header(api, version, correlationId);
        short headerVersion = api.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer bytes = ByteBuffer.allocate(header.size(cache, headerVersion) + body.length);
        header.write(new ByteBufferAccessor(bytes), cache, headerVersion);
        return bytes.put(body).flip();
    }

    /**
     * {@code body} at {@code version} as the proxy's header decoder hands it on: a {@link RequestFrame}
     * whose frame (an unpooled buffer the caller releases) is the header and body as a client sends them.
     */
    public static RequestFrame requestFrame(ApiMessage body, short version, int correlationId) {
        ApiKeys api = ApiKeys.forId(body.apiKey());
        RequestHeaderData header = header(api, version, correlationId);
        int headerLength = header.size(new ObjectSerializationCache(), api.requestHeaderVersion(version));
        return new RequestFrame(api.id, version, correlationId, header.clientId(), headerLength,
                Unpooled.wrappedBuffer(request(body, version, correlationId)));
    }

    private static RequestHeaderData header(ApiKeys api, short version, int correlationId) {
        return new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(correlationId).setClientId("fuzz");
    }
}
