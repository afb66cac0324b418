package org.kafscale.proxy.lfs.tracker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TrackerEventsTest {
    private final TrackerEvents events = new TrackerEvents("proxy-1");

    @Test
    void commonFieldsComeFirstAndEmptyOptionalFieldsAreLeftOut() {
        TrackerEvent event = events.uploadStarted("req-1", "videos", 0, "default/videos/lfs/x", "", -1, "",
                TrackerEvents.API_HTTP);

        assertEquals(List.of("event_type", "event_id", "timestamp", "proxy_id", "request_id", "version", "topic",
                "partition", "s3_key", "expected_size", "api_type"), List.copyOf(event.fields().keySet()));
        assertEquals("videos", event.kafkaKey());
        assertEquals("upload_started", event.type());
    }

    @Test
    void downloadEventsHaveAnEmptyKey() {
        TrackerEvent event = events.downloadCompleted("req-2", "k", "stream", 12, 0);
        assertEquals("", event.kafkaKey());
        assertEquals(List.of("event_type", "event_id", "timestamp", "proxy_id", "request_id", "version", "s3_key",
                "mode", "duration_ms"), List.copyOf(event.fields().keySet()));
    }

    @Test
    void orphanEventNamesItsSource() {
        TrackerEvent event = events.orphanDetected("req-3", "t", "b", "k", "kafka_produce_failed");
        assertEquals("upload_failure", event.fields().get("detection_source"));
        assertEquals("req-3", event.fields().get("original_request_id"));
    }
}
