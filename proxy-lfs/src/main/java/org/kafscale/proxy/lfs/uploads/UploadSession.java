package org.kafscale.proxy.lfs.uploads;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;

/**
 * One multipart upload, as every proxy replica sees it: stored in etcd or in the bucket, never only
 * in a process, so any replica can take any part (the original kept it in memory and lost it
 * behind a Service, issue #321).
 *
 * <p>It carries the running SHA-256 (and the requested checksum's) state after the last recorded
 * part, so the replica that takes part n+1 continues the hash where the one that took part n left
 * it. Parts therefore arrive strictly in order.
 *
 * @param id the proxy's upload id (not S3's)
 * @param bucket the bucket of the object
 * @param objectKey the object key (spec §4.7)
 * @param s3UploadId S3's multipart upload id
 * @param topic target topic
 * @param partition target partition, chosen at init
 * @param topicId the topic's id at init, checked again before the produce (may be the zero id)
 * @param recordKey record key as standard base64, or null
 * @param contentType the object's and the envelope's content type
 * @param sizeBytes the size the client declared at init
 * @param partSize the largest part accepted
 * @param checksumAlg wire name of the requested checksum algorithm
 * @param expectedChecksum the checksum the client expects for the whole object, or null
 * @param createdAt RFC 3339 UTC
 * @param expiresAt RFC 3339 UTC; fixed at init, parts do not extend it
 * @param parts recorded parts, numbered 1..n without gaps
 * @param uploadedBytes sum of the recorded parts' sizes
 * @param sha256State SHA-256 state after the recorded parts (BouncyCastle encoding)
 * @param checksumState the requested algorithm's state when it is MD5 or CRC-32, else null
 * @param completing set by the replica that completes the S3 upload (compare-and-set), so a second
 *     complete cannot produce a second record
 * @param endingClaim a fresh id written by the replica that ends an expired session
 *     (compare-and-set), so concurrent sweeps agree on one of them doing it; null until then. A new
 *     id each time, because an update must change the bytes for the bucket's ETag to change
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record UploadSession(String id, String bucket, String objectKey, String s3UploadId,
                            String topic, int partition, String topicId, String recordKey, String contentType,
                            long sizeBytes, long partSize, String checksumAlg, String expectedChecksum,
                            String createdAt, String expiresAt,
                            List<UploadedPart> parts, long uploadedBytes,
                            byte[] sha256State, byte[] checksumState, boolean completing, String endingClaim) {

    public UploadSession {
        parts = List.copyOf(parts);
    }

    Instant expiry() {
        return Instant.parse(expiresAt);
    }

    boolean expiredAt(Instant now) {
        return !now.isBefore(expiry());
    }

    int nextPartNumber() {
        return parts.size() + 1;
    }

    Optional<UploadedPart> part(int partNumber) {
        return partNumber >= 1 && partNumber <= parts.size()
                ? Optional.of(parts.get(partNumber - 1))
                : Optional.empty();
    }

    ChecksumAlg algorithm() {
        return ChecksumAlg.parse(checksumAlg)
                .orElseThrow(() -> new IllegalStateException("session " + id + " names checksum " + checksumAlg));
    }

    /** The session after {@code part}, with the digests' states after its bytes. */
    UploadSession withPart(UploadedPart part, SessionDigests.State digests) {
        List<UploadedPart> grown = new ArrayList<>(parts);
        grown.add(part);
        return new UploadSession(id, bucket, objectKey, s3UploadId, topic, partition, topicId, recordKey, contentType,
                sizeBytes, partSize, checksumAlg, expectedChecksum, createdAt, expiresAt,
                grown, uploadedBytes + part.size(), digests.sha256(), digests.checksum(), completing, endingClaim);
    }

    UploadSession withCompleting(boolean value) {
        return new UploadSession(id, bucket, objectKey, s3UploadId, topic, partition, topicId, recordKey, contentType,
                sizeBytes, partSize, checksumAlg, expectedChecksum, createdAt, expiresAt,
                parts, uploadedBytes, sha256State, checksumState, value, endingClaim);
    }

    UploadSession withEndingClaim(String claim) {
        return new UploadSession(id, bucket, objectKey, s3UploadId, topic, partition, topicId, recordKey, contentType,
                sizeBytes, partSize, checksumAlg, expectedChecksum, createdAt, expiresAt,
                parts, uploadedBytes, sha256State, checksumState, completing, claim);
    }
}
