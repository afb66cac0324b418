package org.kafscale.proxy.lfs.publish;

import java.util.concurrent.CompletableFuture;
import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Keeps the bucket free of objects no record points to (spec §4.12): an object whose record was
 * not sent is deleted; one whose record may exist, or whose delete failed, is an orphan, counted
 * in the metric, logged and reported to the tracker, so nothing is left untracked.
 */
public final class ObjectJanitor {
    public static final String REASON_PRODUCE_FAILED = "kafka_produce_failed";
    public static final String REASON_DELETE_FAILED = "delete_failed";
    private static final Logger LOGGER = LoggerFactory.getLogger(ObjectJanitor.class);

    private final S3AsyncClient s3;
    private final String bucket;
    private final LfsMetrics metrics;
    private final LfsTracker tracker;
    private final TrackerEvents events;

    public ObjectJanitor(S3AsyncClient s3, String bucket, LfsMetrics metrics, LfsTracker tracker, TrackerEvents events) {
        this.s3 = s3;
        this.bucket = bucket;
        this.metrics = metrics;
        this.tracker = tracker;
        this.events = events;
    }

    /**
     * The record for {@code key} was not sent and will not be: deletes the object. Completes
     * normally either way, after the delete finished; a failed delete becomes an orphan.
     */
    public CompletableFuture<Void> deleteUnsent(String topic, String key, String requestId, String why) {
        return s3.deleteObject(b -> b.bucket(bucket).key(key)).handle((ok, error) -> {
            if (error != null) {
                metrics.s3Error();
                LOGGER.warn("lfs object not deleted after {}: {}", why, error.toString());
                keepOrphan(topic, key, requestId, REASON_DELETE_FAILED);
            } else {
                LOGGER.debug("lfs object {} deleted: {}", key, why);
            }
            return null;
        });
    }

    /** The record may exist (the produce was sent and failed): the object stays and is counted. */
    public void keepOrphan(String topic, String key, String requestId, String reason) {
        metrics.orphan();
        LOGGER.warn("lfs orphaned object topic={} key={} reason={} request_id={}", topic, key, reason, requestId);
        tracker.emit(events.orphanDetected(requestId, topic, bucket, key, reason));
    }
}
