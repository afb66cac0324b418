package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonNumbersTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode body(String value) throws Exception {
        return JSON.readTree("{\"size\":" + value + "}");
    }

    @Test
    void theReviewsLenientFormsAreRefused() throws Exception {
        for (String lenient : new String[] {"\"27\"", "27.9", "27.0", "2.7e1", "18446744073709551643", "true"}) {
            JsonNode body = body(lenient);
            assertEquals("bad", assertThrows(LfsException.class,
                    () -> JsonNumbers.wholeNumber(body, "size", 0, Long.MAX_VALUE, "bad")).code(), lenient);
        }
    }

    @Test
    void aWholeNumberInRangeIsTakenAndOneOutOfRangeIsNot() throws Exception {
        assertEquals(27, JsonNumbers.wholeNumber(body("27"), "size", 0, 100, "bad").getAsLong());
        assertThrows(LfsException.class, () -> JsonNumbers.wholeNumber(body("-1"), "size", 0, 100, "bad"));
        assertThrows(LfsException.class, () -> JsonNumbers.wholeNumber(body("101"), "size", 0, 100, "bad"));
    }

    @Test
    void anAbsentOrNullFieldIsEmpty() throws Exception {
        assertTrue(JsonNumbers.wholeNumber(JSON.readTree("{}"), "size", 0, 1, "bad").isEmpty());
        assertTrue(JsonNumbers.wholeNumber(body("null"), "size", 0, 1, "bad").isEmpty());
    }
}
