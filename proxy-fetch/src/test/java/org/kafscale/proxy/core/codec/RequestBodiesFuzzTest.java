package org.kafscale.proxy.core.codec;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.kafscale.proxy.core.apis.ApiSpec;
import org.kafscale.proxy.core.testing.TestFrames;
import org.kafscale.proxy.routing.apis.Apis;
import org.kafscale.proxy.testkit.ThreadAllocation;

/**
 * Coverage-guided fuzzing of the body decode every routed request goes through
 * ({@link RequestFrame#decodeBody(Class)}, as routing calls it): Produce, Fetch, the partition
 * APIs, the group and transaction APIs, and the bodies the proxy answers itself (Metadata,
 * FindCoordinator, DescribeCluster, DescribeTopicPartitions).
 *
 * <p>The fuzzer picks the API among those whose body the proxy decodes, a version that API has,
 * and the body bytes; the header is written correctly so that the body decode is what is tried.
 * Documented outcome: the body parses, or the decode throws a {@link RuntimeException} (Kafka's
 * {@code SchemaException} and friends), which routing answers by closing the connection. Never an
 * {@link Error}, and never an allocation out of proportion to the bytes sent: Kafka's readers
 * check a claimed length against the bytes left before allocating, and this target holds them
 * to it.
 */
class RequestBodiesFuzzTest {
    /**
     * The APIs whose body the proxy may decode: every served key (routing decodes all but the opaque
     * forwards, the authorizer every checked one), in ApiKeys order.
     */
    static final List<ApiKeys> DECODED = Apis.catalog().all().values().stream().filter(ApiSpec::served)
            .map(ApiSpec::api)
            .sorted()
            .toList();
    /** Generous for Kafka's object overhead, far below what a claimed length could make it allocate. */
    private static final int ALLOCATION_PER_BYTE = 256;
    private static final int ALLOCATION_BASE_BYTES = 1 << 20;

    static {
        // Loading kafka-clients' classes for each API allocates megabytes once; not the decoder's doing.
        for (ApiKeys api : DECODED) {
            for (short version = api.oldestVersion(); version <= api.latestVersion(); version++) {
                decodeOrFail(api, version, new byte[0]);
            }
        }
    }

    @FuzzTest
    void decodedBodiesParseOrFailWithTheProtocolError(FuzzedDataProvider data) {
        ApiKeys api = data.pickValue(DECODED);
        short version = (short) data.consumeInt(api.oldestVersion(), api.latestVersion());
        byte[] body = data.consumeRemainingAsBytes();
        ThreadAllocation.assertAtMost(ALLOCATION_BASE_BYTES + (long) ALLOCATION_PER_BYTE * body.length,
                api + " v" + version + " body decode of " + body.length + " bytes", () -> decodeOrFail(api, version, body));
    }

    /** Decodes the body as routing does; a failure is the documented one when it is a RuntimeException. */
    private static void decodeOrFail(ApiKeys api, short version, byte[] body) {
        ByteBuf frame = Unpooled.wrappedBuffer(TestFrames.request(api, version, 7, body));
        RequestFrame request = RequestHeaderDecoder.parse(frame);
        frame.release();
        try {
            request.decodeBody(ApiMessage.class);
        } catch (RuntimeException documented) {
            // The protocol error: routing closes the connection with its message.
        } finally {
            request.frame().release();
        }
    }
}
