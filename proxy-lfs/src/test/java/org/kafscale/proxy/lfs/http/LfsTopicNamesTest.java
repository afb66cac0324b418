package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LfsTopicNamesTest {
    private final LfsTopicNames names = new LfsTopicNames(249);

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

    @Test
    void dotAndDotDotAreRefusedLikeKafkaDoes() {
        assertFalse(names.valid("."));
        assertFalse(names.valid(".."));
        assertEquals("invalid_topic", assertThrows(LfsException.class, () -> names.check("..")).code());
        assertTrue(names.valid("..."));
    }

    @Test
    void internalTopicsAreRefused() {
        assertEquals("invalid_topic", assertThrows(LfsException.class, () -> names.check("__lfs_ops_state")).code());
        assertEquals("invalid_topic", assertThrows(LfsException.class, () -> names.check("__consumer_offsets")).code());
        names.check("_single-underscore");
    }
}
