package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceRequest;
import org.junit.jupiter.api.Test;

/** A request's body is parsed once, whoever reads it, and never after its frame is released. */
class RequestFrameMemoTest {
    private static final short VERSION = 9;

    @Test
    void everyReaderGetsTheOneParsedBody() {
        RequestFrame request = produce();
        try {
            ProduceRequestData first = request.decodeBody(ProduceRequestData.class);

            // An error answer (kafka-clients' getErrorResponse) and a second reader take the same parse
            ResponseFrames.errorResponse(request, Errors.NOT_LEADER_OR_FOLLOWER).release();
            assertSame(first, request.decodeBody(ProduceRequestData.class));
            assertEquals(1, request.bodyParses());
        } finally {
            request.frame().release();
        }
    }

    @Test
    void aFrameEncodedFromABodyHandsThatBodyBackUnparsed() {
        RequestFrame request = produce();
        RequestFrame encoded = null;
        try {
            ProduceRequestData body = request.decodeBody(ProduceRequestData.class).setTimeoutMs(5_000);
            encoded = RequestFrames.withBody(request, body);

            assertSame(body, encoded.decodeBody(ProduceRequestData.class));
            assertEquals(0, encoded.bodyParses());
        } finally {
            request.frame().release();
            if (encoded != null) {
                encoded.frame().release();
            }
        }
    }

    @Test
    void aBodyReadAfterItsFrameWasReleasedFailsInsteadOfReadingFreedMemory() {
        RequestFrame request = produce();
        request.decodeBody(ProduceRequestData.class);
        request.frame().release();

        assertThrows(IllegalStateException.class, () -> request.decodeBody(ProduceRequestData.class));
    }

    private static RequestFrame produce() {
        return KafkaWire.requestFrame(new ProduceRequest.Builder(VERSION, VERSION,
                KafkaWire.produceData("orders", 0, "k", "v")).build(VERSION), 42, "producer");
    }
}
