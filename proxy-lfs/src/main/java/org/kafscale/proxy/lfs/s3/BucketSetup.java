package org.kafscale.proxy.lfs.s3;

import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.BucketLocationConstraint;

/**
 * KAFSCALE_LFS_PROXY_S3_ENSURE_BUCKET: HeadBucket, then CreateBucket when it is missing. Runs once
 * at start-up (off the event loops); failures are only logged, as in the original.
 */
public final class BucketSetup {
    private static final Logger LOGGER = LoggerFactory.getLogger(BucketSetup.class);
    private static final String US_EAST_1 = "us-east-1";

    private BucketSetup() {
    }

    public static void ensure(S3AsyncClient s3, S3Settings settings) {
        try {
            s3.headBucket(b -> b.bucket(settings.bucket())).join();
            return;
        } catch (CompletionException e) {
            LOGGER.info("bucket {} not reachable ({}); creating it", settings.bucket(), e.getCause().toString());
        }
        try {
            s3.createBucket(b -> {
                b.bucket(settings.bucket());
                if (!US_EAST_1.equals(settings.region())) {
                    b.createBucketConfiguration(c -> c.locationConstraint(
                            BucketLocationConstraint.fromValue(settings.region())));
                }
            }).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof BucketAlreadyOwnedByYouException
                    || e.getCause() instanceof BucketAlreadyExistsException) {
                return;
            }
            LOGGER.warn("cannot create bucket {}: {}", settings.bucket(), e.getCause().toString());
        }
    }
}
