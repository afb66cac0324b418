package org.kafscale.proxy.lfs.uploads;

import java.io.IOException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** Sessions as compact JSON (snake_case; byte arrays as base64), the same in etcd and in the bucket. */
final class UploadSessionCodec {

    // A newer replica may add fields during a rolling upgrade; an older one must still read the session.
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private UploadSessionCodec() {
    }

    static byte[] encode(UploadSession session) {
        try {
            return MAPPER.writeValueAsBytes(session);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode upload session " + session.id(), e);
        }
    }

    static UploadSession decode(byte[] json) {
        try {
            return MAPPER.readValue(json, UploadSession.class);
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable upload session: " + e.getMessage(), e);
        }
    }
}
