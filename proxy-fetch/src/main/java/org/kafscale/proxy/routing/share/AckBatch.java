package org.kafscale.proxy.routing.share;

import java.util.List;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;

/**
 * One acknowledgement batch of a client's ShareFetch or ShareAcknowledge, whichever carried it, so
 * the same batch can go on to its broker in either request.
 */
record AckBatch(long firstOffset, long lastOffset, List<Byte> acknowledgeTypes) {

    static AckBatch of(ShareFetchRequestData.AcknowledgementBatch batch) {
        return new AckBatch(batch.firstOffset(), batch.lastOffset(), batch.acknowledgeTypes());
    }

    static AckBatch of(ShareAcknowledgeRequestData.AcknowledgementBatch batch) {
        return new AckBatch(batch.firstOffset(), batch.lastOffset(), batch.acknowledgeTypes());
    }

    ShareFetchRequestData.AcknowledgementBatch forFetch() {
        return new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(firstOffset).setLastOffset(lastOffset)
                .setAcknowledgeTypes(acknowledgeTypes);
    }

    ShareAcknowledgeRequestData.AcknowledgementBatch forAcknowledge() {
        return new ShareAcknowledgeRequestData.AcknowledgementBatch().setFirstOffset(firstOffset)
                .setLastOffset(lastOffset).setAcknowledgeTypes(acknowledgeTypes);
    }
}
