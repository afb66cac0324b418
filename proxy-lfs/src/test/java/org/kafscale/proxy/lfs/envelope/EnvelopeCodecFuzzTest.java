package org.kafscale.proxy.lfs.envelope;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.kafscale.proxy.testkit.ThreadAllocation;

/**
 * Coverage-guided fuzzing of the envelope decoder, which reads record values a consumer or the
 * LFS download route gets from Kafka: any producer can write any bytes there.
 *
 * <p>Documented outcome: {@link EnvelopeCodec#decode} returns an envelope or throws
 * {@link IllegalArgumentException} ("not an LFS envelope"), nothing else; an envelope it returns
 * survives {@link EnvelopeCodec#encode} and decodes to itself (what the proxy writes, it reads
 * back); {@link EnvelopeCodec#looksLikeEnvelope} never throws. Allocation stays in proportion to
 * the value's size.
 */
class EnvelopeCodecFuzzTest {
    private static final int ALLOCATION_PER_BYTE = 512;
    private static final int ALLOCATION_BASE_BYTES = 1 << 20;

    @FuzzTest
    void recordValuesDecodeToEnvelopesThatRoundTripOrAreRefused(byte[] value) {
        EnvelopeCodec.looksLikeEnvelope(value);
        ThreadAllocation.assertAtMost(ALLOCATION_BASE_BYTES + (long) ALLOCATION_PER_BYTE * value.length,
                "envelope decode of " + value.length + " bytes", () -> decodeAndRoundTrip(value));
    }

    private static void decodeAndRoundTrip(byte[] value) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(value);
        } catch (IllegalArgumentException documented) {
            return;
        }
        assertEquals(envelope, EnvelopeCodec.decode(EnvelopeCodec.encode(envelope)), "the envelope round-trips");
    }
}
