package org.kafscale.proxy.lfs;

import java.util.concurrent.ExecutorService;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.lfs.limits.Limiters;
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
 * @param s3 the asynchronous S3 client of uploads and downloads (its pool is sized from the limits)
 * @param controlS3 a client with a small pool of its own, for the session store (the health check has
 *                  another): clients' uploads and downloads can never take its connections
 * @param presigner presigns download URLs (through the public endpoint when set)
 * @param keys object key layout and download-key checks
 * @param publisher connects before an upload and produces the envelope after it
 * @param janitor deletes objects whose record was not sent, counts orphans
 * @param tracker ops events
 * @param events builds ops events with this proxy's id
 * @param metrics the {@code kafscale_lfs_proxy_*} series
 * @param s3Health the S3 health flag
 * @param blocking a bounded executor for blocking work (files, signing), never an event loop
 * @param topology the cluster topology
 * @param limits admission of uploads and downloads
 */
public record LfsContext(LfsSettings settings, S3AsyncClient s3, S3AsyncClient controlS3, S3Presigner presigner,
                         ObjectKeys keys,
                         EnvelopePublisher publisher, ObjectJanitor janitor, LfsTracker tracker, TrackerEvents events,
                         LfsMetrics metrics, S3Health s3Health, ExecutorService blocking, Topology topology,
                         Limiters limits) {
}
