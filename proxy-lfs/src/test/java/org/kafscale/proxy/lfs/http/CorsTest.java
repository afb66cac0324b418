package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;

class CorsTest {

    @Test
    void byDefaultNoOriginIsGrantedAnything() {
        HttpHeaders headers = new DefaultHttpHeaders();
        Cors.NONE.add(headers, "https://evil.example");
        assertFalse(Cors.NONE.allows("https://evil.example"));
        assertNull(headers.get("Access-Control-Allow-Origin"));
    }

    @Test
    void anAllowedOriginIsEchoedAndOthersAreNot() {
        Cors cors = Cors.allowing(List.of("https://app.example"));
        HttpHeaders allowed = new DefaultHttpHeaders();
        HttpHeaders other = new DefaultHttpHeaders();

        cors.add(allowed, "https://app.example");
        cors.add(other, "https://evil.example");

        assertEquals("https://app.example", allowed.get("Access-Control-Allow-Origin"));
        assertEquals("Origin", allowed.get("Vary"));
        assertTrue(allowed.get("Access-Control-Allow-Headers").contains("X-Kafka-Topic"));
        assertNull(other.get("Access-Control-Allow-Origin"));
    }

    @Test
    void theWildcardAllowsEveryOriginAsTheOriginalDid() {
        HttpHeaders headers = new DefaultHttpHeaders();
        Cors.allowing(List.of(Cors.ANY)).add(headers, "https://any.example");
        assertEquals("*", headers.get("Access-Control-Allow-Origin"));
    }
}
