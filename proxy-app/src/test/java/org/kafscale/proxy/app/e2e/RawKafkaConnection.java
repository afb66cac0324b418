package org.kafscale.proxy.app.e2e;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One Kafka connection driven request by request, built with kafka-clients' own request and
 * response classes, for tests that need to see exactly what one connection gets.
 */
final class RawKafkaConnection implements AutoCloseable {
    private static final Duration READ_DEADLINE = Duration.ofSeconds(20);

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int nextCorrelationId = 1;

    RawKafkaConnection(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) READ_DEADLINE.toMillis());
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Sends the request and reads its answer, checking the correlation id. */
    <R extends AbstractResponse> R send(AbstractRequest request) throws IOException {
        return read(write(request));
    }

    /** Sends the request without waiting; {@link #read} takes its answer. */
    RequestHeader write(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-test", nextCorrelationId++);
        ByteBuffer bytes = request.serializeWithHeader(header);
        out.writeInt(bytes.remaining());
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        out.flush();
        return header;
    }

    /** Reads the answer to the request sent with {@code header}, which must be the next one. */
    @SuppressWarnings("unchecked")
    <R extends AbstractResponse> R read(RequestHeader header) throws IOException {
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return (R) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
    }

    /** True when the proxy closed the connection (end of stream or reset) before the deadline. */
    boolean closedByProxy() throws IOException {
        try {
            return in.read() == -1;
        } catch (EOFException | java.net.SocketException closed) {
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
