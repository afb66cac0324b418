package org.kafscale.proxy.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A generated section of a document is replaced alone; the hand-written text and other sections stay. */
class MarkedSectionTest {
    private final MarkedSection tenants = new MarkedSection("bench:tenants");

    @Test
    void replacesOnlyTheTextBetweenItsOwnMarkers() {
        // Given a document with two generated sections
        String document = "# Title\n<!-- bench:latest:begin -->\nlatest\n<!-- bench:latest:end -->\nprose\n"
                + "<!-- bench:tenants:begin -->\nold table\n<!-- bench:tenants:end -->\nmore prose\n";

        // When the tenants section is replaced
        String updated = tenants.replacedIn(document, "new table\n");

        // Then only its text changed
        assertEquals("# Title\n<!-- bench:latest:begin -->\nlatest\n<!-- bench:latest:end -->\nprose\n"
                + "<!-- bench:tenants:begin -->\nnew table\n<!-- bench:tenants:end -->\nmore prose\n", updated);
    }

    @Test
    void aDocumentWithoutTheSectionGetsItAtTheEnd() {
        String updated = tenants.replacedIn("# Title\n", "table\n");

        assertEquals("# Title\n\n<!-- bench:tenants:begin -->\ntable\n<!-- bench:tenants:end -->\n", updated);
    }
}
