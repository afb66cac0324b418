package org.kafscale.proxy.lfs.uploads;

import java.time.Clock;

import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.lfs.publish.EnvelopePublisher;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import org.kafscale.proxy.lfs.s3.ObjectKeys;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;

import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * What the steps of a multipart upload share: the session store, and the LFS module's S3 client,
 * key layout, envelope publisher, janitor, tracker and metrics.
 *
 * @param store where sessions live
 * @param s3 the module's S3 client
 * @param keys the object key layout
 * @param publisher connects to the partition's owner and produces the envelope
 * @param janitor counts orphans
 * @param settings the multipart settings
 * @param metrics the {@code kafscale_lfs_proxy_*} series
 * @param tracker ops events
 * @param events builds ops events
 * @param clock session times and expiry
 */
public record UploadServices(UploadSessionStore store, S3AsyncClient s3, ObjectKeys keys, EnvelopePublisher publisher,
                             ObjectJanitor janitor, UploadSettings settings, LfsMetrics metrics, LfsTracker tracker,
                             TrackerEvents events, Clock clock) {
}
