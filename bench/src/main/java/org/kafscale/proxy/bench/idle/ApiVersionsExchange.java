package org.kafscale.proxy.bench.idle;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * What every Kafka client does first on a new connection: an ApiVersions request (v3, the one
 * kafka-clients sends) and its answer, over a blocking channel. After it the connection is one a
 * client holds open: established, negotiated, idle.
 */
final class ApiVersionsExchange {
    private static final short VERSION = 3;
    private static final int MAX_ANSWER = 64 * 1024;

    private ApiVersionsExchange() {
    }

    /** Connects to {@code proxy}, asks ApiVersions and reads the whole answer; the channel stays open. */
    static SocketChannel open(InetSocketAddress proxy) throws IOException {
        SocketChannel channel = SocketChannel.open(proxy);
        try {
            channel.write(request());
            readAnswer(channel);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static ByteBuffer request() {
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, VERSION, "idle-connections", 1);
        ByteBuffer body = RequestUtils.serialize(header.data(), header.headerVersion(), new ApiVersionsRequestData()
                .setClientSoftwareName("idle-connections").setClientSoftwareVersion("1.0"), VERSION);
        ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining());
        frame.putInt(body.remaining()).put(body).flip();
        return frame;
    }

    private static void readAnswer(SocketChannel channel) throws IOException {
        ByteBuffer size = ByteBuffer.allocate(4);
        readFully(channel, size);
        int length = size.flip().getInt();
        if (length <= 0 || length > MAX_ANSWER) {
            throw new IOException("ApiVersions answer of " + length + " bytes");
        }
        readFully(channel, ByteBuffer.allocate(length));
    }

    private static void readFully(SocketChannel channel, ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (channel.read(into) < 0) {
                throw new EOFException("the proxy closed the connection");
            }
        }
    }
}
