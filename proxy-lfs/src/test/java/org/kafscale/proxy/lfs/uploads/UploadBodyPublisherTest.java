package org.kafscale.proxy.lfs.uploads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.http.BodySink;
import org.kafscale.proxy.lfs.http.ExchangeBodyPublisher;
import org.kafscale.proxy.lfs.http.LfsExchange;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * The part body on its way to S3 never piles up in the heap: while the reader (the SDK) asks for
 * nothing, reading from the client pauses once {@link ExchangeBodyPublisher#HIGH_WATER} bytes wait.
 */
class UploadBodyPublisherTest {

    private static final int CHUNK = 64 * 1024;

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final FakeExchange exchange = new FakeExchange(channel.eventLoop());

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void readingPausesWhileTheReaderAsksForNothingAndResumesWhenItCatchesUp() {
        // Given a subscriber that has asked for nothing yet
        ExchangeBodyPublisher body = new ExchangeBodyPublisher(exchange, UploadErrors::partBroken);
        Reader reader = new Reader();
        body.subscribe(reader);

        // When the client sends more than the high-water mark
        int chunks = ExchangeBodyPublisher.HIGH_WATER / CHUNK + 1;
        for (int i = 0; i < chunks; i++) {
            feed(exchange.sink, CHUNK);
        }

        // Then reading from the client is paused, and resumes once the reader took enough
        assertTrue(exchange.paused);
        reader.subscription.request(chunks);
        assertFalse(exchange.paused);
        assertEquals((long) chunks * CHUNK, reader.bytes);
    }

    @Test
    void aReaderThatCancelsLetsTheRestOfTheBodyBeReadAndDropped() {
        ExchangeBodyPublisher body = new ExchangeBodyPublisher(exchange, UploadErrors::partBroken);
        Reader reader = new Reader();
        body.subscribe(reader);
        for (int i = 0; i <= ExchangeBodyPublisher.HIGH_WATER / CHUNK; i++) {
            feed(exchange.sink, CHUNK);
        }
        assertTrue(exchange.paused);

        reader.subscription.cancel();
        feed(exchange.sink, CHUNK);

        assertFalse(exchange.paused);
        assertEquals(0, reader.bytes);
    }

    @Test
    void theBodyCompletesAfterItsLastChunkAndASecondReaderIsRefused() {
        ExchangeBodyPublisher body = new ExchangeBodyPublisher(exchange, UploadErrors::partBroken);
        Reader reader = new Reader();
        body.subscribe(reader);
        reader.subscription.request(Long.MAX_VALUE);

        feed(exchange.sink, 10);
        exchange.sink.onEnd();

        assertEquals(10, reader.bytes);
        assertTrue(reader.completed.isDone());
        Reader late = new Reader();
        body.subscribe(late);
        assertTrue(late.completed.isCompletedExceptionally());
    }

    private static void feed(BodySink sink, int size) {
        ByteBuf chunk = Unpooled.wrappedBuffer(new byte[size]);
        try {
            sink.onChunk(chunk);
        } finally {
            chunk.release();
        }
    }

    private static final class Reader implements Subscriber<ByteBuffer> {
        final CompletableFuture<Void> completed = new CompletableFuture<>();
        Subscription subscription;
        long bytes;

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
        }

        @Override
        public void onNext(ByteBuffer buffer) {
            bytes += buffer.remaining();
        }

        @Override
        public void onError(Throwable error) {
            completed.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            completed.complete(null);
        }
    }

    /** Only what the publisher uses: the event loop, the body and pause/resume. */
    private static final class FakeExchange implements LfsExchange {
        private final EventLoop loop;
        BodySink sink;
        boolean paused;

        FakeExchange(EventLoop loop) {
            this.loop = loop;
        }

        @Override
        public EventLoop eventLoop() {
            return loop;
        }

        @Override
        public void streamBody(BodySink bodySink) {
            sink = bodySink;
        }

        @Override
        public void pauseBody() {
            paused = true;
        }

        @Override
        public void resumeBody() {
            paused = false;
        }

        @Override
        public HttpMethod method() {
            return HttpMethod.PUT;
        }

        @Override
        public String path() {
            return "/lfs/uploads/x/parts/1";
        }

        @Override
        public HttpHeaders headers() {
            return new DefaultHttpHeaders();
        }

        @Override
        public String requestId() {
            return "test";
        }

        @Override
        public String clientIp() {
            return "127.0.0.1";
        }

        @Override
        public CompletableFuture<byte[]> readBody(int maxBytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void respondJson(int status, Object body) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void respondBytes(int status, String contentType, byte[] body) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void respondNoContent() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void respondFile(Path file, long length, String contentType, Map<String, String> headers,
                                Runnable afterSend) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void fail(Throwable failure) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean responded() {
            return false;
        }
    }
}
