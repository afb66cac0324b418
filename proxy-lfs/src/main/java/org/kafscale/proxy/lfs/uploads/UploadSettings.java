package org.kafscale.proxy.lfs.uploads;

import java.time.Duration;

import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;

/**
 * What the multipart API needs from the module's configuration.
 *
 * @param bucket the LFS bucket
 * @param proxyId written into envelopes, may be empty
 * @param sessionTtl how long a session lives after init ({@code UPLOAD_SESSION_TTL_SEC})
 * @param partSize the largest part accepted, and the size every part but the last should have
 * @param maxBlobSize the largest object accepted
 * @param topicMaxLength the longest topic name accepted
 * @param defaultChecksum the algorithm when init names none
 */
public record UploadSettings(String bucket, String proxyId, Duration sessionTtl, long partSize, long maxBlobSize,
                             int topicMaxLength, ChecksumAlg defaultChecksum) {

    /** S3 refuses a part smaller than this unless it is the last one. */
    public static final long MIN_PART_SIZE = LfsSettings.MIN_CHUNK_SIZE;

    public static UploadSettings from(LfsSettings settings) {
        return new UploadSettings(settings.s3().bucket(), settings.proxyId(), settings.uploadSessionTtl(),
                settings.chunkSize(), settings.maxBlobSize(), settings.topicMaxLength(), settings.defaultChecksum());
    }
}
