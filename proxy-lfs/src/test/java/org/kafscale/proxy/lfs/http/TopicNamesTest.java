package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TopicNamesTest {
    private final TopicNames names = new TopicNames(249);

    @Test
    void lettersDigitsDotsDashesAndUnderscoresUpToTheLimit() {
        assertTrue(names.valid("video-uploads_v2.eu"));
        assertTrue(names.valid("t".repeat(249)));
        assertFalse(names.valid("t".repeat(250)));
        assertFalse(names.valid(""));
        assertFalse(names.valid("a/b"));
        assertFalse(names.valid("a b"));
    }

    @Test
    void missingAndInvalidHaveTheirOwnCodes() {
        assertEquals("missing_topic", assertThrows(LfsException.class, () -> names.check("")).code());
        assertEquals("invalid_topic", assertThrows(LfsException.class, () -> names.check("a*b")).code());
    }
}
