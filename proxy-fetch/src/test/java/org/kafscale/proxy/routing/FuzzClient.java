package org.kafscale.proxy.routing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A client connection for fuzz targets: writes frames as they are, and reads either the next
 * answer or the proxy's close. Unlike {@code RawKafkaConnection} it sends bodies no Kafka client
 * would, and a missing answer fails at once with what was sent.
 */
final class FuzzClient implements AutoCloseable {
    /**
     * Every scripted broker answers at once: an answer that takes this long is one that never
     * comes. (Ten seconds was too short while fuzzing on a loaded machine: the first request of
     * each path also waits for Jazzer to instrument the classes it loads.)
     */
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(30);

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    FuzzClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) ANSWER_WAIT.toMillis());
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Whether {@code host} names this machine's loopback, where every party of a routing fuzz target listens. */
    static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    /** Writes one frame; a connection the proxy has already closed takes nothing more, which {@link #answerOrClose} then reports. */
    void send(ByteBuffer frame) throws IOException {
        try {
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
        } catch (SocketException closedByProxy) {
            // Broken pipe or reset: the proxy closed after an earlier frame (an acks=0 Produce it could not route).
        }
    }

    /**
     * The next answer, parsed as the answer to a request of {@code api} at {@code version} with
     * {@code correlationId} (kafka-clients checks the correlation id); null when the proxy closed
     * the connection instead.
     *
     * @throws AssertionError when neither came within {@link #ANSWER_WAIT}
     */
    AbstractResponse answerOrClose(ApiKeys api, short version, int correlationId, String sent) throws IOException {
        byte[] answer;
        try {
            answer = new byte[in.readInt()];
            in.readFully(answer);
        } catch (EOFException | SocketException closed) {
            return null;
        } catch (SocketTimeoutException silent) {
            throw new AssertionError("no answer and no close within " + ANSWER_WAIT + " for " + sent);
        }
        return AbstractResponse.parseResponse(ByteBuffer.wrap(answer), new RequestHeader(api, version, "fuzz", correlationId));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
