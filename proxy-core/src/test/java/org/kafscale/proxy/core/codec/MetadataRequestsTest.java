package org.kafscale.proxy.core.codec;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.junit.jupiter.api.Test;

class MetadataRequestsTest {

    @Test
    void aNullTopicListAsksForEveryTopic() {
        // Given / When / Then
        assertTrue(MetadataRequests.isAllTopics(new MetadataRequestData().setTopics(null), (short) 12));
    }

    @Test
    void anEmptyTopicListAsksForEveryTopicAtV0AndForNoneFromV1() {
        // Given a request naming no topic
        MetadataRequestData none = new MetadataRequestData().setTopics(List.of());

        // When / Then v0 reads it as every topic, v1 and later as none
        assertTrue(MetadataRequests.isAllTopics(none, (short) 0));
        assertFalse(MetadataRequests.isAllTopics(none, (short) 1));
    }

    @Test
    void namedTopicsAreNotEveryTopic() {
        // Given / When / Then
        assertFalse(MetadataRequests.isAllTopics(new MetadataRequestData().setTopics(
                List.of(new MetadataRequestTopic().setName("orders"))), (short) 12));
    }
}
