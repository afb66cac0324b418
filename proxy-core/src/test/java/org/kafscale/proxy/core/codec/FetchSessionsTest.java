package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.junit.jupiter.api.Test;

class FetchSessionsTest {

    private static FetchRequestData consumerFetch(FetchMetadata session) {
        return FetchRequest.Builder.forConsumer((short) 12, 500, 1, Map.of()).metadata(session).build((short) 12)
                .data();
    }

    @Test
    void aFetchOutsideAnySessionIsSessionless() {
        // Given a consumer's Fetch without a session, as Kafka's client builds it
        FetchRequestData request = consumerFetch(FetchMetadata.LEGACY);

        // When / Then it is sessionless, and carries the values the proxy sends its own with
        assertTrue(FetchSessions.isSessionless(request));
        assertEquals(FetchSessions.NO_SESSION, request.sessionId());
        assertEquals(FetchSessions.SESSIONLESS_EPOCH, request.sessionEpoch());
    }

    @Test
    void aFetchThatOpensOrContinuesASessionIsNot() {
        // Given / When / Then a Fetch opening a session, and one continuing session 7, are not sessionless
        assertFalse(FetchSessions.isSessionless(consumerFetch(FetchMetadata.INITIAL)));
        assertFalse(FetchSessions.isSessionless(consumerFetch(FetchMetadata.newIncremental(7))));
    }
}
