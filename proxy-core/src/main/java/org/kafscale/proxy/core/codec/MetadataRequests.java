package org.kafscale.proxy.core.codec;

import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.requests.MetadataRequest;

/** What a Metadata request asks for, read the way Kafka's broker reads it. */
public final class MetadataRequests {
    private MetadataRequests() {
    }

    /** Whether the request asks for every topic: a null topic list, or at v0 an empty one. */
    public static boolean isAllTopics(MetadataRequestData request, short version) {
        return new MetadataRequest(request, version).isAllTopics();
    }
}
