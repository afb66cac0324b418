package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.KafkaWire;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.Hooks;
import org.kafscale.proxy.core.policy.Policy;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.policy.PolicyConnection;
import org.kafscale.proxy.core.policy.PolicyFactory;
import org.kafscale.proxy.core.policy.RequestPolicy;

/**
 * A policy made per connection ({@link PolicyFactory}) on the real connection handler: each
 * connection gets its own instance, which reads only that connection's requests and is closed
 * when that connection closes; a shared policy in the same chain stays one instance.
 */
class PerConnectionPoliciesTest {
    private static final short METADATA_VERSION = 12;

    /** Every instance the factory made, in order. */
    private final List<Counting> made = new ArrayList<>();
    /** The shared policy's reads, by connection id. */
    private final List<String> sharedReads = new ArrayList<>();
    private final PolicyChain chain = new PolicyChain(List.of(
            PolicyFactory.shared((RequestPolicy) (body, context) -> {
                sharedReads.add(context.connection().id());
                return context.forward();
            }),
            connection -> {
                Counting policy = new Counting(connection);
                made.add(policy);
                return policy;
            }));
    /** Answers each Metadata with an empty answer. */
    private final RequestHandlers route = RequestHandlers.shared((context, request) -> Replies.now(context.loop(),
            Reply.send(ResponseFrames.encode(request, new MetadataResponseData()))));
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void stop() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    @Test
    void eachConnectionGetsItsOwnInstanceClosedWhenItCloses() {
        // Given two connections through a chain with a shared policy and one made per connection
        EmbeddedChannel first = connection();
        EmbeddedChannel second = connection();

        // When each sends requests (the first two, the second one)
        answer(first, 1);
        answer(first, 2);
        answer(second, 3);

        // Then each connection has an instance of its own, which read its connection's requests only
        assertEquals(2, made.size());
        Counting ofFirst = made.get(0);
        Counting ofSecond = made.get(1);
        assertNotEquals(ofFirst.connection.id(), ofSecond.connection.id());
        assertEquals(2, ofFirst.reads);
        assertEquals(1, ofSecond.reads);
        // ... and the shared policy, one instance, read all three
        assertEquals(List.of(ofFirst.connection.id(), ofFirst.connection.id(), ofSecond.connection.id()),
                sharedReads);

        // When the first connection closes
        first.close();

        // Then its instance is closed and the other's is not
        assertEquals(1, ofFirst.closes);
        assertEquals(0, ofSecond.closes);

        // When the second closes too, then its instance is closed, once
        second.close();
        second.close();
        assertEquals(1, ofSecond.closes);
        assertEquals(1, ofFirst.closes);
    }

    @Test
    void aFactoryWhosePolicyCannotRegisterClosesItsConnectionOnItsFirstRequest() {
        // Given a chain whose factory makes a policy that reads nothing
        PolicyChain broken = new PolicyChain(List.of(connection -> new Policy() {
        }));
        EmbeddedChannel channel = TestConnections.channel(TestConnections.handler(broken.around(route), 16,
                Duration.ofSeconds(30), ConnectionListener.NONE, new ConnectionBudgets(ListenerLimits.DEFAULTS)));
        channels.add(channel);

        // When the client sends a request
        channel.writeInbound(metadataRequest(1));
        channel.runPendingTasks();

        // Then the connection closes without an answer
        assertFalse(channel.isOpen());
        assertEquals(0, KafkaWire.drainOutbound(channel).readableBytes());
    }

    private EmbeddedChannel connection() {
        EmbeddedChannel channel = TestConnections.channel(TestConnections.handler(chain.around(route), 16,
                Duration.ofSeconds(30), ConnectionListener.NONE, new ConnectionBudgets(ListenerLimits.DEFAULTS)));
        channels.add(channel);
        return channel;
    }

    /** Sends a Metadata request with {@code correlationId} and checks its answer came back. */
    private static void answer(EmbeddedChannel channel, int correlationId) {
        channel.writeInbound(metadataRequest(correlationId));
        channel.runPendingTasks();
        List<ByteBuf> frames = KafkaWire.splitFrames(KafkaWire.drainOutbound(channel));
        assertEquals(1, frames.size());
        KafkaWire.Response response = KafkaWire.parseResponseAndRelease(frames.get(0), ApiKeys.METADATA,
                METADATA_VERSION);
        assertEquals(correlationId, response.correlationId());
        response.as(MetadataResponse.class);
    }

    private static ByteBuf metadataRequest(int correlationId) {
        return KafkaWire.sizePrefixed(KafkaWire.requestBytes(new MetadataRequest.Builder(new MetadataRequestData())
                .build(METADATA_VERSION), correlationId, "client"));
    }

    /** Counts the Metadata requests of its connection it reads, and its closes. */
    private static final class Counting implements Policy, AutoCloseable {
        private final PolicyConnection connection;
        private int reads;
        private int closes;

        Counting(PolicyConnection connection) {
            this.connection = connection;
        }

        @Override
        public void register(Hooks hooks) {
            hooks.onRequest(MetadataRequestData.class, (request, context) -> {
                assertEquals(connection.id(), context.connection().id());
                reads++;
                return context.forward();
            });
        }

        @Override
        public void close() {
            closes++;
        }
    }
}
