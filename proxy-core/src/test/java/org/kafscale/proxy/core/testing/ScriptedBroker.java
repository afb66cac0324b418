package org.kafscale.proxy.core.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.kafscale.proxy.core.codec.KafkaFrameDecoder;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.testkit.Eventually;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker that speaks the real Kafka protocol and answers as the test scripted it, for the
 * faults and timings a real broker cannot be made to show on demand.
 *
 * <p>A loopback Netty server (port 0) with the proxy's own framing: {@link KafkaFrameDecoder} in,
 * {@link LengthFieldPrepender} out. Each request is parsed with kafka-clients
 * ({@link RequestHeader}, {@link AbstractRequest#parseRequest}) and recorded; the {@link Script}
 * for its API says what happens: an answer built with kafka-clients' generated classes (encoded at
 * the request's version with its correlation id), at once, after a delay or when the test lets
 * it go; a truncated frame; a closed connection; or silence. A Produce with acks=0 is never
 * answered, as Kafka defines. An API with no script is not answered either.
 *
 * <p>Every frame is copied and released as it is read, and answers are encoded only when they
 * are written, so nothing is retained however a test ends.
 */
public final class ScriptedBroker implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(ScriptedBroker.class);
    private static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(20);

    /**
     * One request as the broker read it.
     *
     * @param frame the request's bytes as they arrived: header and body, the size prefix excluded
     */
    public record Request(ApiKeys api, short version, int correlationId, AbstractRequest request, byte[] frame) {
        /** The request's body, kafka-clients' generated class for its API. */
        public <T extends ApiMessage> T data(Class<T> type) {
            return type.cast(request.data());
        }

        /** Kafka's own error answer to this request ({@link AbstractRequest#getErrorResponse}). */
        public ApiMessage errorAnswer(Errors error) {
            return request.getErrorResponse(0, error.exception()).data();
        }
    }

    /** What the broker does with one request. */
    @FunctionalInterface
    public interface Script {
        Response respond(Request request);
    }

    /** What the broker does with one request: answer (now, later, when told), break, or say nothing. */
    public sealed interface Response {
        record Answer(ApiMessage body, Duration delay) implements Response {
        }

        record AnswerWhen(CompletionStage<?> signal, ApiMessage body) implements Response {
        }

        record Truncated(ApiMessage body) implements Response {
        }

        record Close() implements Response {
        }

        record Silence() implements Response {
        }

        record Raw(byte[] body) implements Response {
        }

        static Response answer(ApiMessage body) {
            return new Answer(body, Duration.ZERO);
        }

        static Response answerAfter(Duration delay, ApiMessage body) {
            return new Answer(body, delay);
        }

        /** Holds the request (a long poll, say) and answers once {@code signal} completes. */
        static Response answerWhen(CompletionStage<?> signal, ApiMessage body) {
            return new AnswerWhen(signal, body);
        }

        /** A complete frame of half the answer's size: its correlation id matches, its body does not parse. */
        static Response truncated(ApiMessage body) {
            return new Truncated(body);
        }

        /** Closes the connection the request came on. */
        static Response close() {
            return new Close();
        }

        /**
         * Answers with a correct response header (the request's correlation id) followed by
         * {@code body} as it is: a broker whose answer says anything at all.
         */
        static Response raw(byte[] body) {
            return new Raw(body);
        }

        /** Never answers; the connection stays open. */
        static Response silence() {
            return new Silence();
        }
    }

    private final int id;
    private final EventLoopGroup group;
    private final Channel server;
    private final Map<ApiKeys, Script> scripts = new ConcurrentHashMap<>();
    private final List<Request> received = new CopyOnWriteArrayList<>();
    private final Map<ApiKeys, AtomicInteger> answered = new ConcurrentHashMap<>();

    private ScriptedBroker(int id) {
        this.id = id;
        this.group = NettyTransport.newEventLoopGroup(1, "scripted-broker-" + id);
        try {
            this.server = new ServerBootstrap()
                    .group(group)
                    .channel(NettyTransport.serverChannelClass(group))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline()
                                    .addLast("frameDecoder", new KafkaFrameDecoder(MAX_FRAME_BYTES, "client of broker " + id))
                                    .addLast("framePrepender", new LengthFieldPrepender(4))
                                    .addLast("requests", new RequestHandler());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** Starts a broker with node id {@code id} on a free loopback port. */
    public static ScriptedBroker start(int id) {
        return new ScriptedBroker(id);
    }

    /** Where the proxy reaches this broker, for the topology. */
    public BrokerEndpoint endpoint() {
        return new BrokerEndpoint(id, "127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort(), null);
    }

    public int id() {
        return id;
    }

    /** From now on, requests of {@code api} are answered by {@code script}. */
    public ScriptedBroker on(ApiKeys api, Script script) {
        scripts.put(api, script);
        return this;
    }

    /** Every request of {@code api} read so far, in order. */
    public List<Request> received(ApiKeys api) {
        return received.stream().filter(r -> r.api() == api).toList();
    }

    /** How many requests of {@code api} were read so far. */
    public int requests(ApiKeys api) {
        return received(api).size();
    }

    /** How many answers to {@code api} requests were written so far (truncated ones included). */
    public int answers(ApiKeys api) {
        AtomicInteger count = answered.get(api);
        return count == null ? 0 : count.get();
    }

    /** Waits until at least {@code count} requests of {@code api} were read, and returns them all. */
    public List<Request> awaitRequests(ApiKeys api, int count) {
        Eventually.await(WAIT, "broker " + id + " to read " + count + " " + api.name + " request(s)",
                () -> requests(api) >= count);
        return received(api);
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Override
    public String toString() {
        return "scripted broker " + id;
    }

    private final class RequestHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            // A copy, so the parsed request (whose records are views of its bytes) outlives the frame.
            byte[] arrived = ByteBufUtil.getBytes(frame);
            ByteBuffer bytes = ByteBuffer.wrap(arrived);
            RequestHeader header = RequestHeader.parse(bytes);
            AbstractRequest body = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
                    new ByteBufferAccessor(bytes)).request;
            Request request = new Request(header.apiKey(), header.apiVersion(), header.correlationId(), body, arrived);
            received.add(request);
            if (body.data() instanceof ProduceRequestData produce && produce.acks() == 0) {
                return;
            }
            Script script = scripts.get(request.api());
            if (script != null) {
                perform(ctx, request, script.respond(request));
            }
        }

        private void perform(ChannelHandlerContext ctx, Request request, Response response) {
            if (response instanceof Response.Answer answer) {
                if (answer.delay().isZero()) {
                    write(ctx, request, answer.body(), false);
                } else {
                    ctx.executor().schedule(() -> write(ctx, request, answer.body(), false), answer.delay().toMillis(),
                            TimeUnit.MILLISECONDS);
                }
            } else if (response instanceof Response.AnswerWhen held) {
                held.signal().whenComplete((done, error) -> ctx.executor().execute(() -> write(ctx, request, held.body(), false)));
            } else if (response instanceof Response.Truncated truncated) {
                write(ctx, request, truncated.body(), true);
            } else if (response instanceof Response.Raw raw) {
                writeRaw(ctx, request, raw.body());
            } else if (response instanceof Response.Close) {
                ctx.close();
            }
        }

        private void write(ChannelHandlerContext ctx, Request request, ApiMessage body, boolean truncate) {
            ByteBuffer encoded = RequestUtils.serialize(new ResponseHeaderData().setCorrelationId(request.correlationId()),
                    request.api().responseHeaderVersion(request.version()), body, request.version());
            int length = truncate ? encoded.remaining() / 2 : encoded.remaining();
            answered.computeIfAbsent(request.api(), a -> new AtomicInteger()).incrementAndGet();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(encoded.array(), encoded.arrayOffset() + encoded.position(), length));
        }

        private void writeRaw(ChannelHandlerContext ctx, Request request, byte[] body) {
            ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(request.correlationId());
            short headerVersion = request.api().responseHeaderVersion(request.version());
            ObjectSerializationCache cache = new ObjectSerializationCache();
            ByteBuffer encoded = ByteBuffer.allocate(header.size(cache, headerVersion) + body.length);
            header.write(new ByteBufferAccessor(encoded), cache, headerVersion);
            encoded.put(body).flip();
            answered.computeIfAbsent(request.api(), a -> new AtomicInteger()).incrementAndGet();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(encoded));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOGGER.warn("{} closes a connection: {}", ScriptedBroker.this, cause.toString());
            ctx.close();
        }
    }
}
