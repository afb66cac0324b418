package org.kafscale.proxy.core.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * One Kafka connection driven request by request, built with kafka-clients' own request and
 * response classes, for tests that need to see exactly what one connection gets. Blocking: each
 * read waits at most {@link #READ_DEADLINE} and fails after it.
 */
public final class RawKafkaConnection implements AutoCloseable {
    public static final Duration READ_DEADLINE = Duration.ofSeconds(20);

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final String clientId;
    private int nextCorrelationId = 1;

    public RawKafkaConnection(int port) throws IOException {
        this(port, "raw-test");
    }

    /** A connection whose requests carry {@code clientId}. */
    public RawKafkaConnection(int port, String clientId) throws IOException {
        this.clientId = clientId;
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) READ_DEADLINE.toMillis());
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Sends the request and reads its answer, checking the correlation id. */
    public <R extends AbstractResponse> R send(AbstractRequest request) throws IOException {
        return read(write(request));
    }

    /** Sends a request body at {@code version} and reads the answer's body, checking the correlation id. */
    @SuppressWarnings("unchecked")
    public <D extends ApiMessage> D send(ApiMessage body, short version) throws IOException {
        return (D) read(write(body, version)).data();
    }

    /** Sends the request without waiting; {@link #read} takes its answer. */
    public RequestHeader write(AbstractRequest request) throws IOException {
        RequestHeader header = nextHeader(request.apiKey(), request.version());
        writeFrame(request.serializeWithHeader(header));
        return header;
    }

    /** Sends a request body at {@code version} without waiting; {@link #read} takes its answer. */
    public RequestHeader write(ApiMessage body, short version) throws IOException {
        RequestHeader header = nextHeader(ApiKeys.forId(body.apiKey()), version);
        writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), body, version));
        return header;
    }

    /** Reads the answer to the request sent with {@code header}, which must be the next one. */
    @SuppressWarnings("unchecked")
    public <R extends AbstractResponse> R read(RequestHeader header) throws IOException {
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return (R) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
    }

    /** True when the proxy closed the connection (end of stream or reset) before the deadline. */
    public boolean closedByProxy() throws IOException {
        try {
            return in.read() == -1;
        } catch (EOFException | java.net.SocketException closed) {
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
    }

    private RequestHeader nextHeader(ApiKeys api, short version) {
        return new RequestHeader(api, version, clientId, nextCorrelationId++);
    }

    private void writeFrame(ByteBuffer bytes) throws IOException {
        out.writeInt(bytes.remaining());
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
