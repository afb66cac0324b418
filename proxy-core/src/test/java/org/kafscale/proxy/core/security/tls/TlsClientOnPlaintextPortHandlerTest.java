package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class TlsClientOnPlaintextPortHandlerTest {
    /** The first bytes of a TLS 1.2/1.3 ClientHello record. */
    private static final byte[] CLIENT_HELLO_START = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
    /** A Kafka frame: size 10, ApiVersions v3, correlation id 1, no client id. */
    private static final byte[] KAFKA_FRAME = {0, 0, 0, 10, 0, 18, 0, 3, 0, 0, 0, 1, -1, -1};

    @Test
    void aTlsClientHelloClosesTheConnectionAndNothingIsHandedOn() {
        // Given
        EmbeddedChannel channel = new EmbeddedChannel(new TlsClientOnPlaintextPortHandler(new TlsLogs()));
        // When
        channel.writeInbound(Unpooled.wrappedBuffer(CLIENT_HELLO_START));
        // Then
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
    }

    @Test
    void aClientHelloArrivingOneByteAtATimeIsStillRecognised() {
        // Given
        EmbeddedChannel channel = new EmbeddedChannel(new TlsClientOnPlaintextPortHandler(new TlsLogs()));
        // When
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x16}));
        assertTrue(channel.isOpen(), "one byte says nothing yet");
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x03, 0x01}));
        // Then
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound());
    }

    @Test
    void aKafkaRequestPassesUntouchedAndTheCheckStepsOut() {
        // Given
        EmbeddedChannel channel = new EmbeddedChannel(new TlsClientOnPlaintextPortHandler(new TlsLogs()));
        // When
        channel.writeInbound(Unpooled.wrappedBuffer(KAFKA_FRAME));
        // Then
        ByteBuf passed = channel.readInbound();
        try {
            assertEquals(Unpooled.wrappedBuffer(KAFKA_FRAME), passed);
        } finally {
            passed.release();
        }
        assertNull(channel.pipeline().get(TlsClientOnPlaintextPortHandler.class));
        assertTrue(channel.isOpen());
        assertFalse(channel.finish());
    }
}
