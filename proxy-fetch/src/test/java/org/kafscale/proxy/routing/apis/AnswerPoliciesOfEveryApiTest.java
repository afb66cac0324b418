package org.kafscale.proxy.routing.apis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.codec.RequestFrame;
import org.kafscale.proxy.core.codec.ResponseFrames;
import org.kafscale.proxy.core.policy.AnswerOutcome;
import org.kafscale.proxy.core.policy.Hooks;
import org.kafscale.proxy.core.policy.Policy;
import org.kafscale.proxy.core.policy.PolicyChain;
import org.kafscale.proxy.core.server.ConnectionContext;
import org.kafscale.proxy.core.server.Replies;
import org.kafscale.proxy.core.server.Reply;
import org.kafscale.proxy.core.server.RequestHandler;
import org.kafscale.proxy.core.testing.TestFrames;

/**
 * For every key the proxy forwards (each key of {@link Apis#all()}), at its latest version: an
 * answer hook registered for the key's response class replaces the broker's answer, and the client
 * reads the replacement (decoded once for the policy); a chain that reads the key's requests but not its answers hands the
 * broker's frame back untouched, never decoded. A route stub stands for the broker and answers
 * each request with its response class's defaults.
 */
class AnswerPoliciesOfEveryApiTest {
    /** An unknown tagged field marks the replacement where the version is flexible... */
    private static final int MARK_TAG = 9_999;
    private static final byte[] MARK = "replaced by a policy".getBytes(StandardCharsets.UTF_8);
    /** ... its throttle time where it is not (OffsetDelete has no flexible version). */
    private static final int MARK_THROTTLE_MS = 4_321;

    private final EventLoop loop = new DefaultEventLoop();
    private final ConnectionContext connection = new ConnectionContext(loop, null,
            new InetSocketAddress("127.0.0.1", 50000));
    /** The broker's answer frames, as the route made them. */
    private final List<ByteBuf> brokerAnswers = new ArrayList<>();
    private final RequestHandler route = (context, request) -> {
        ApiKeys api = request.knownApi().orElseThrow();
        ByteBuf frame = ResponseFrames.encode(api, request.apiVersion(), request.correlationId(),
                api.messageType.newResponse());
        brokerAnswers.add(frame);
        return Replies.now(context.loop(), Reply.send(frame));
    };

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void anAnswerHookReplacesTheAnswerOfEveryForwardedApi() throws Exception {
        for (ApiKeys api : Apis.all().keySet()) {
            // Given a chain whose one policy replaces the answers of this API with a marked answer of its own
            ApiMessage replacement = marked(api.messageType.newResponse());
            PolicyChain chain = PolicyChain.of(replacing(api.messageType.newResponse().getClass(), replacement));

            // When a request of the API goes through it to the route
            Reply reply = handle(chain, api);

            // Then the client reads the policy's answer, not the broker's, decoded for the policy once
            assertEquals(asRead(api, replacement), read(api, reply), api.name);
            assertNotEquals(asRead(api, api.messageType.newResponse()), asRead(api, replacement), api.name);
            assertEquals(1, chain.answersDecoded(), api.name);
        }
    }

    @Test
    void anAnswerNoPolicyReadsIsNeverDecoded() throws Exception {
        for (ApiKeys api : Apis.all().keySet()) {
            // Given a chain whose one policy reads the API's requests and no answer
            PolicyChain chain = PolicyChain.of(readingRequestsOf(api.messageType.newRequest().getClass()));

            // When a request of the API goes through it to the route
            Reply reply = handle(chain, api);

            // Then the client gets the broker's own frame, which nothing decoded
            ByteBuf frame = assertInstanceOf(Reply.Send.class, reply, api.name).frame();
            assertSame(brokerAnswers.get(brokerAnswers.size() - 1), frame, api.name);
            frame.release();
            assertEquals(0, chain.answersDecoded(), api.name);
        }
    }

    /** A request of {@code api} at its latest version, with its body's defaults, through {@code chain}. */
    private Reply handle(PolicyChain chain, ApiKeys api) throws Exception {
        RequestFrame request = TestFrames.requestFrame(requestOf(api), api.latestVersion(), 42);
        try {
            RequestHandler handler = chain.around(route);
            Future<Reply> reply = loop.submit(() -> handler.handle(connection, request)).get(5, TimeUnit.SECONDS);
            return reply.get(5, TimeUnit.SECONDS);
        } finally {
            assertFalse(request.frame().refCnt() == 0, api.name + ": the client's frame is the caller's");
            request.frame().release();
        }
    }

    /** The body's defaults, which kafka-clients accepts as a request of every key but DescribeAcls. */
    private static ApiMessage requestOf(ApiKeys api) {
        if (api == ApiKeys.DESCRIBE_ACLS) {
            return new DescribeAclsRequestData().setResourceTypeFilter(ResourceType.ANY.code())
                    .setPatternTypeFilter(PatternType.ANY.code()).setOperation(AclOperation.ANY.code())
                    .setPermissionType(AclPermissionType.ANY.code());
        }
        return api.messageType.newRequest();
    }

    /** {@code answer}, marked so that a client can tell it from the broker's. */
    private static ApiMessage marked(ApiMessage answer) throws ReflectiveOperationException {
        ApiKeys api = ApiKeys.forId(answer.apiKey());
        if (api.messageType.responseHeaderVersion(api.latestVersion()) > 0) {
            answer.unknownTaggedFields().add(new RawTaggedField(MARK_TAG, MARK));
        } else {
            answer.getClass().getMethod("setThrottleTimeMs", int.class).invoke(answer, MARK_THROTTLE_MS);
        }
        return answer;
    }

    /** {@code answer} as a client reads it once encoded at the latest version (a default may read back as null). */
    private static ApiMessage asRead(ApiKeys api, ApiMessage answer) {
        ByteBuf frame = ResponseFrames.encode(api, api.latestVersion(), 42, answer);
        return read(api, Reply.send(frame));
    }

    /** The answer {@code reply} writes, as a client reads it; its frame is released. */
    private static ApiMessage read(ApiKeys api, Reply reply) {
        ByteBuf frame = assertInstanceOf(Reply.Send.class, reply, api.name).frame();
        try {
            return ResponseFrames.decode(api, api.latestVersion(), frame);
        } finally {
            frame.release();
        }
    }

    /** A policy that answers every answer of {@code type}'s API with {@code replacement}. */
    private static <T extends ApiMessage> Policy replacing(Class<T> type, ApiMessage replacement) {
        return registering(hooks -> hooks.onAnswer(type, (answer, context) ->
                context.now(AnswerOutcome.replace(replacement))));
    }

    /** A policy that reads every request of {@code type}'s API and lets it go on. */
    private static <T extends ApiMessage> Policy readingRequestsOf(Class<T> type) {
        return registering(hooks -> hooks.onRequest(type, (request, context) -> context.forward()));
    }

    private static Policy registering(Consumer<Hooks> register) {
        return new Policy() {
            @Override
            public void register(Hooks hooks) {
                register.accept(hooks);
            }
        };
    }
}
