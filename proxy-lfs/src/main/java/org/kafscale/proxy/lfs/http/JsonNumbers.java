package org.kafscale.proxy.lfs.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;

/**
 * Whole numbers from JSON bodies, read strictly: Jackson's {@code asLong} takes {@code "27"},
 * {@code 27.9} and 2^64+27 (wrapped) all as 27, so a size or part number a client got wrong would
 * be silently replaced by another one.
 */
public final class JsonNumbers {
    private JsonNumbers() {
    }

    /**
     * The field's value when it is a JSON integer (no quotes, no fraction or exponent) between
     * {@code min} and {@code max}; empty when the field is absent or null. Anything else is
     * 400 {@code code}.
     */
    public static OptionalLong wholeNumber(JsonNode parent, String field, long min, long max, String code) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull() || node.isMissingNode()) {
            return OptionalLong.empty();
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw LfsException.badRequest(code, field + " must be a whole number");
        }
        long value = node.longValue();
        if (value < min || value > max) {
            throw LfsException.badRequest(code, field + " must be between " + min + " and " + max);
        }
        return OptionalLong.of(value);
    }
}
