package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.requests.FetchMetadata;

/**
 * Fetch sessions (KIP-227) as far as the proxy deals with them: it sends and answers only
 * sessionless Fetches, which name every partition each time.
 */
public final class FetchSessions {
    /** The session id of a sessionless Fetch and of its answer. */
    public static final int NO_SESSION = FetchMetadata.INVALID_SESSION_ID;
    /** The session epoch of a sessionless Fetch. */
    public static final int SESSIONLESS_EPOCH = FetchMetadata.FINAL_EPOCH;

    private FetchSessions() {
    }

    /** Whether the client's Fetch names all its partitions itself, outside any session. */
    public static boolean isSessionless(FetchRequestData request) {
        return request.sessionId() == NO_SESSION && request.sessionEpoch() == SESSIONLESS_EPOCH;
    }
}
