package org.kafscale.proxy.lfs.uploads;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The answer to {@code POST /lfs/uploads}; {@code upload_id} is the proxy's id, not S3's. */
public record InitResponse(@JsonProperty("upload_id") String uploadId,
                           @JsonProperty("s3_key") String s3Key,
                           @JsonProperty("part_size") long partSize,
                           @JsonProperty("expires_at") String expiresAt) {
}
