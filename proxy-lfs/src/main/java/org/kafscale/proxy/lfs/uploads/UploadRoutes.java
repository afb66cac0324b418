package org.kafscale.proxy.lfs.uploads;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.etcd.jetcd.Client;
import org.kafscale.proxy.lfs.LfsContext;
import org.kafscale.proxy.lfs.http.LfsRoute;
import org.kafscale.proxy.lfs.http.LfsRouteFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Contributes the multipart routes to the LFS module and runs their expiry sweep.
 *
 * <p>Sessions go to etcd when the proxy has one (every replica of a KafScale deployment shares
 * it), else into the bucket. The application passes an instance to {@code LfsModule.start} and
 * closes it with the module, which stops the sweep.
 */
public final class UploadRoutes implements LfsRouteFactory, AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(UploadRoutes.class);
    /** How long an etcd session key outlives its expiry (see {@link EtcdUploadSessionStore}). */
    private static final Duration ETCD_LEASE_GRACE = Duration.ofMinutes(10);

    private final Optional<Client> etcd;
    private final Clock clock;
    private final List<ExpiredUploadSweeper> sweepers = new ArrayList<>();
    private ScheduledExecutorService scheduler;

    /** @param etcd the proxy's etcd client when discovery uses etcd; it stays owned by the caller */
    public UploadRoutes(Optional<Client> etcd, Clock clock) {
        this.etcd = etcd;
        this.clock = clock;
    }

    @Override
    public synchronized List<LfsRoute> routes(LfsContext context) {
        MultipartUploads uploads = uploads(context);
        ExpiredUploadSweeper sweeper = new ExpiredUploadSweeper(uploads);
        sweeper.start(scheduler(), ExpiredUploadSweeper.intervalFor(context.settings().uploadSessionTtl()));
        sweepers.add(sweeper);
        return List.of(new UploadsRoute(uploads, context.limits().uploads(), context.settings().limits()));
    }

    /** The service these routes use, for the module's context. */
    public MultipartUploads uploads(LfsContext context) {
        UploadSessionStore store = etcd
                .<UploadSessionStore>map(client -> new EtcdUploadSessionStore(client, ETCD_LEASE_GRACE, clock))
                // The control client: clients' uploads cannot take the store's connections.
                .orElseGet(() -> new S3UploadSessionStore(context.controlS3(), context.settings().s3().bucket(),
                        context.settings().namespace()));
        LOGGER.info("lfs upload sessions kept in {}", store.describe());
        if (etcd.isEmpty() && context.settings().s3().endpoint().isPresent()) {
            // Each proxy lets one complete per upload run at a time; across replicas only the
            // store's compare-and-set stops a second record, and off AWS S3 that may not be atomic.
            LOGGER.warn("lfs upload sessions are in the bucket of a custom S3 endpoint, whose conditional writes may "
                    + "not be atomic: run one replica, or give the proxy etcd, so that concurrent completes of one "
                    + "upload on two replicas cannot both produce a record");
        }
        return new MultipartUploads(new UploadServices(store, context.s3(), context.keys(), context.publisher(),
                context.janitor(), UploadSettings.from(context.settings()), context.metrics(), context.tracker(),
                context.events(), clock));
    }

    private ScheduledExecutorService scheduler() {
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "lfs-upload-sweeper");
                t.setDaemon(true);
                return t;
            });
        }
        return scheduler;
    }

    @Override
    public synchronized void close() {
        sweepers.forEach(ExpiredUploadSweeper::close);
        sweepers.clear();
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
