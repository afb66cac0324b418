package org.kafscale.proxy.lfs;

import java.util.concurrent.ExecutorService;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.lfs.metrics.LfsMetrics;
import org.kafscale.proxy.lfs.publish.EnvelopePublisher;
import org.kafscale.proxy.lfs.publish.ObjectJanitor;
import org.kafscale.proxy.lfs.s3.ObjectKeys;
import org.kafscale.proxy.lfs.s3.S3Health;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvents;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The services every LFS route shares, built once by {@link LfsModule}.
 *
 * @param settings the module's configuration
 * @param s3 the asynchronous S3 client
 * @param presigner presigns download URLs (through the public endpoint when set)
 * @param keys object key layout and download-key checks
 * @param publisher connects before an upload and produces the envelope after it
 * @param janitor deletes objects whose record was not sent, counts orphans
 * @param tracker ops events
 * @param events builds ops events with this proxy's id
 * @param metrics the {@code kafscale_lfs_proxy_*} series
 * @param s3Health the S3 health flag
 * @param blocking an executor for blocking work (files), never an event loop
 * @param topology the cluster topology
 */
public record LfsContext(LfsSettings settings, S3AsyncClient s3, S3Presigner presigner, ObjectKeys keys,
                         EnvelopePublisher publisher, ObjectJanitor janitor, LfsTracker tracker, TrackerEvents events,
                         LfsMetrics metrics, S3Health s3Health, ExecutorService blocking, Topology topology) {
}
