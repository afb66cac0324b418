package org.kafscale.proxy.core.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.RequestHeaderDecoder;

/**
 * A client connection's pipeline as the listener builds it (framing, header decoder, the
 * connection handler) on an {@link EmbeddedChannel} whose clock the test moves.
 */
final class TestConnections {
    private TestConnections() {
    }

    /** The connection handler of a bootstrap-port connection whose requests {@code handlers} handle. */
    static ClientConnectionHandler handler(RequestHandlers handlers, int maxInFlight, Duration requestTimeout,
                                           ConnectionListener listener, ConnectionBudgets budgets) {
        return new ClientConnectionHandler(new ListenerParts(handlers,
                new BackendConnector(KafkaWire.MAX_FRAME_BYTES, Duration.ofSeconds(1)), maxInFlight,
                requestTimeout.toMillis(), listener, new ConnectionLogs(), budgets, OptionalInt.empty()));
    }

    /** An open connection through {@code handlers} (before the connection handler), time frozen. */
    static EmbeddedChannel channel(ChannelHandler... handlers) {
        ChannelHandler[] pipeline = Stream.concat(Stream.of(new KafkaFrameDecoder(KafkaWire.MAX_FRAME_BYTES, "client"),
                new LengthFieldPrepender(4), new RequestHeaderDecoder()), Stream.of(handlers))
                .toArray(ChannelHandler[]::new);
        EmbeddedChannel channel = new EmbeddedChannel(pipeline);
        channel.freezeTime();
        return channel;
    }
}
