package org.kafscale.proxy.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A generated part of a hand-written document: the text between {@code <!-- <name>:begin -->}
 * and {@code <!-- <name>:end -->}, replaced by each run that generates it, so the document keeps
 * its hand-written parts and always shows the last run.
 */
public record MarkedSection(String name) {
    String begin() {
        return "<!-- " + name + ":begin -->";
    }

    String end() {
        return "<!-- " + name + ":end -->";
    }

    /** {@code document} with the section's text replaced by {@code text} (the markers appended when absent). */
    public String replacedIn(String document, String text) {
        String block = begin() + "\n" + text + end();
        int begin = document.indexOf(begin());
        int end = document.indexOf(end());
        return begin >= 0 && end > begin
                ? document.substring(0, begin) + block + document.substring(end + end().length())
                : document + "\n" + block + "\n";
    }

    /** Replaces the section's text in the file {@code document} (created when absent). */
    public void replaceIn(Path document, String text) throws IOException {
        String current = Files.exists(document) ? Files.readString(document, StandardCharsets.UTF_8) : "";
        Files.writeString(document, replacedIn(current, text), StandardCharsets.UTF_8);
    }
}
