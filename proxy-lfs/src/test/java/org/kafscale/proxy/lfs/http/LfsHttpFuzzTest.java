package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.produce.ProduceRequest;
import org.kafscale.proxy.lfs.uploads.CompleteRequest;
import org.kafscale.proxy.lfs.uploads.InitRequest;
import org.kafscale.proxy.lfs.uploads.UploadSettings;
import org.kafscale.proxy.testkit.RecordingAllocator;

/**
 * Coverage-guided fuzzing of the LFS listener's HTTP parsing: the bytes a client sends go through
 * the listener's own pipeline ({@link LfsHttpInitializer}: Netty's HTTP codec, then
 * {@link LfsHttpHandler} and {@link LfsRouter} with its API key and CORS checks) to routes that
 * parse what the real ones parse: the produce headers ({@link ProduceRequest}) and the upload
 * init and complete bodies ({@link InitRequest}, {@link CompleteRequest}). They answer 200 in
 * place of the object store and Kafka work.
 *
 * <p>Documented outcomes: an HTTP answer (a 4xx with the spec's JSON error for anything refused)
 * or a close. Never a 500 (an exception the code does not expect), no exception out of the
 * pipeline, every buffer released, and what the connection holds bounded by the listener's limits.
 */
class LfsHttpFuzzTest {
    private static final String API_KEY = "fuzz-key";
    private static final int MAX_HEADER_BYTES = 8192;
    private static final int MAX_BODY_BYTES = 16 * 1024;
    private static final UploadSettings UPLOADS = new UploadSettings("b", "p", Duration.ofHours(1), 5L << 20,
            5L << 30, 249, ChecksumAlg.SHA256);
    private static final HttpSettings SETTINGS = new HttpSettings(new InetSocketAddress("127.0.0.1", 0), API_KEY,
            Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(10),
            MAX_HEADER_BYTES, Duration.ofSeconds(1), java.util.Optional.empty(), List.of("https://app.example"));

    @FuzzTest
    void requestBytesGetAnAnswerOrACloseNeverAServerError(FuzzedDataProvider data) {
        RecordingAllocator allocator = new RecordingAllocator();
        LfsRouter router = new LfsRouter(List.of(new ProduceHeaders(), new UploadBodies()), new ApiKeyCheck(API_KEY),
                Cors.allowing(SETTINGS.allowedOrigins()), () -> true);
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator);
        new LfsHttpInitializer(SETTINGS, null, router, () -> { }).addHttpHandlers(channel.pipeline());
        channel.pipeline().fireChannelActive();
        EmbeddedChannel answers = new EmbeddedChannel(new HttpResponseDecoder());
        // Everything sent, to look for HEAD in: a method split over two reads is still a HEAD.
        StringBuilder sent = new StringBuilder();
        try {
            while (data.remainingBytes() > 0 && channel.isOpen()) {
                byte[] read = data.consumeBytes(data.consumeInt(1, 4096));
                sent.append(new String(read, java.nio.charset.StandardCharsets.ISO_8859_1));
                channel.writeInbound(allocator.buffer(read.length).writeBytes(read));
                channel.runPendingTasks();
                drainAnswers(channel, answers);
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        if (sent.indexOf("HEAD") >= 0) {
            // A response to HEAD has no body whatever its Content-Length says; a decoder that did
            // not see the requests cannot frame what follows it. Framing is checked without HEAD.
            answers.finishAndReleaseAll();
        } else {
            checkAnswers(answers);
        }
        allocator.assertAllReleasedAndReset();
    }

    private static void drainAnswers(EmbeddedChannel channel, EmbeddedChannel answers) {
        for (Object out; (out = channel.readOutbound()) != null; ) {
            if (out instanceof ByteBuf bytes) {
                answers.writeInbound(bytes);
            } else {
                ReferenceCountUtil.release(out);
            }
        }
    }

    /** Every answer parses as an HTTP response (Netty's client decoder) and none is a 500. */
    private static void checkAnswers(EmbeddedChannel answers) {
        try {
            for (Object answer; (answer = answers.readInbound()) != null; ) {
                try {
                    if (answer instanceof HttpResponse response) {
                        assertFalse(response.decoderResult().isFailure(), "an HTTP answer: " + response.decoderResult());
                        assertNotEquals(500, response.status().code(), "a server error: " + response);
                    }
                } finally {
                    ReferenceCountUtil.release(answer);
                }
            }
        } finally {
            answers.finishAndReleaseAll();
        }
    }

    /** {@code /lfs/produce}: the real route's header parse, then the body read as it arrives. */
    private static final class ProduceHeaders implements LfsRoute {
        @Override
        public boolean matches(String path) {
            return path.equals("/lfs/produce");
        }

        @Override
        public void checkMethod(io.netty.handler.codec.http.HttpMethod method) {
            if (!io.netty.handler.codec.http.HttpMethod.POST.equals(method)) {
                throw new LfsException(405, "method_not_allowed", "method not allowed");
            }
        }

        @Override
        public void handle(LfsExchange exchange) {
            ProduceRequest request = ProduceRequest.parse(exchange.headers(), new LfsTopicNames(249), ChecksumAlg.SHA256,
                    MAX_BODY_BYTES);
            answerAfterBody(exchange, body -> Map.of("topic", request.topic(), "bytes", body.length));
        }
    }

    /** {@code /lfs/uploads} and {@code /lfs/uploads/{id}/complete}: the real JSON parses. */
    private static final class UploadBodies implements LfsRoute {
        @Override
        public boolean matches(String path) {
            return path.startsWith("/lfs/uploads");
        }

        @Override
        public void handle(LfsExchange exchange) {
            boolean complete = exchange.path().endsWith("/complete");
            answerAfterBody(exchange, body -> complete
                    ? Map.of("parts", CompleteRequest.parse(body).listed().size())
                    : Map.of("topic", InitRequest.parse(body, UPLOADS).topic()));
        }
    }

    private static void answerAfterBody(LfsExchange exchange, Function<byte[], Object> answer) {
        exchange.readBody(MAX_BODY_BYTES).whenComplete((body, error) -> {
            if (error != null) {
                exchange.fail(error);
                return;
            }
            try {
                exchange.respondJson(200, answer.apply(body));
            } catch (RuntimeException e) {
                exchange.fail(e);
            }
        });
    }

}
