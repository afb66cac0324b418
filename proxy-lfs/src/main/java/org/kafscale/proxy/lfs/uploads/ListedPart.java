package org.kafscale.proxy.lfs.uploads;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A part as the client lists it in {@code POST /lfs/uploads/{id}/complete}. */
public record ListedPart(@JsonProperty("part_number") int partNumber, @JsonProperty("etag") String etag) {
}
