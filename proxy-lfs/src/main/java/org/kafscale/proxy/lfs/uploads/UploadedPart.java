package org.kafscale.proxy.lfs.uploads;

/**
 * A part S3 has accepted and the session has recorded.
 *
 * @param partNumber 1-based, as in S3
 * @param size bytes in the part
 * @param sha256 lowercase hex SHA-256 of this part alone: a retry is the same part only if size and
 *     hash match
 * @param etag the ETag S3 returned, as returned (usually quoted)
 */
public record UploadedPart(int partNumber, long size, String sha256, String etag) {

    boolean sameBody(long otherSize, String otherSha256) {
        return size == otherSize && sha256.equals(otherSha256);
    }
}
