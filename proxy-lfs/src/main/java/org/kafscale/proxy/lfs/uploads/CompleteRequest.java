package org.kafscale.proxy.lfs.uploads;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.kafscale.proxy.lfs.http.LfsException;

/**
 * A {@code POST /lfs/uploads/{id}/complete} body, {@code {"parts":[{"part_number":1,"etag":"..."}]}}.
 *
 * <p>Parsing never throws: the spec answers an unknown or unfinished upload (404, 410, 400
 * {@code incomplete_upload}) before a bad body, so the problem is kept until {@link #parts()} is
 * asked for.
 *
 * @param listed the parts as listed, empty when the body is unusable
 * @param problem why the body is unusable, or null
 */
public record CompleteRequest(List<ListedPart> listed, String problem) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public static CompleteRequest of(List<ListedPart> parts) {
        return new CompleteRequest(List.copyOf(parts), parts.isEmpty() ? "parts required" : null);
    }

    public static CompleteRequest parse(byte[] body) {
        JsonNode parts;
        try {
            parts = MAPPER.readTree(body).path("parts");
        } catch (IOException | RuntimeException e) {
            return new CompleteRequest(List.of(), "invalid JSON body");
        }
        if (!parts.isArray() || parts.isEmpty()) {
            return new CompleteRequest(List.of(), "parts required");
        }
        List<ListedPart> listed = new ArrayList<>();
        for (JsonNode part : parts) {
            JsonNode number = part.path("part_number");
            if (!number.isIntegralNumber() || !number.canConvertToInt() || !part.path("etag").isTextual()) {
                return new CompleteRequest(List.of(), "each part needs part_number and etag");
            }
            listed.add(new ListedPart(part.get("part_number").asInt(), part.get("etag").asText()));
        }
        return of(listed);
    }

    /** The listed parts; 400 {@code invalid_request} when the body was unusable. */
    List<ListedPart> parts() {
        if (problem != null) {
            throw LfsException.badRequest("invalid_request", problem);
        }
        return listed;
    }
}
