package org.kafscale.proxy.lfs.uploads;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The answer to a part: the ETag S3 gave it, which the client lists again at completion. */
public record PartReceipt(@JsonProperty("upload_id") String uploadId,
                          @JsonProperty("part_number") int partNumber,
                          @JsonProperty("etag") String etag) {
}
