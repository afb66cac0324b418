package org.kafscale.proxy.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The result table in Markdown. {@link #replaceIn} puts it between two marker comments in
 * docs/benchmarks.md, so the document always shows the last run and keeps its hand-written parts.
 */
public final class MarkdownTable {
    private static final MarkedSection SECTION = new MarkedSection("bench:latest");

    private MarkdownTable() {
    }

    public static String render(BenchReport report) {
        StringBuilder md = new StringBuilder(header(report));
        md.append("| Workload | Metric | Unit | Direct (median) | Proxy (median) | Proxy/direct (median of rounds)"
                + " | Proxy − direct (median of rounds) | Kroxylicious (median) | Kroxylicious/direct (median of rounds)"
                + " | Kroxylicious − direct (median of rounds) | Target | Met |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (Row row : report.rows()) {
            if (row.unavailable() != null) {
                md.append("| ").append(row.workload()).append(" | ").append(row.metric()).append(" | | ")
                        .append(row.unavailable()).append(" | | | | | | | ")
                        .append(row.target() == null ? "" : row.target().describe()).append(" | – |\n");
                continue;
            }
            boolean compared = !row.direct().isEmpty();
            boolean peer = !row.peer().isEmpty();
            md.append("| ").append(row.workload())
                    .append(" | ").append(row.metric())
                    .append(" | ").append(row.unit())
                    .append(" | ").append(compared ? Format.number(row.directMedian()) : "")
                    .append(" | ").append(Format.number(row.proxyMedian()))
                    .append(" | ").append(compared ? Format.number(row.ratio()) : "")
                    .append(" | ").append(compared ? Format.number(row.added()) : "")
                    .append(" | ").append(peer ? Format.number(row.peerMedian()) : "")
                    .append(" | ").append(peer && compared ? Format.number(row.peerRatio()) : "")
                    .append(" | ").append(peer && compared ? Format.number(row.peerAdded()) : "")
                    .append(" | ").append(row.target() == null ? "" : row.target().describe())
                    .append(" | ").append(row.met() == null ? "" : row.met() ? "yes" : "**no**")
                    .append(" |\n");
        }
        return md.toString();
    }

    /** Replaces the text between the markers in {@code document} (appending them if absent). */
    public static void replaceIn(Path document, String table) throws IOException {
        SECTION.replaceIn(document, table);
    }

    /** The lines above a run's table: its command, date and commit, machine and settings. */
    static String header(BenchReport report) {
        return "Command: `" + report.command() + "`  \n"
                + "Date: " + report.date() + ", commit `" + report.commit() + "`  \n"
                + "Machine: " + describe(report.environment()) + "  \n"
                + "Settings: " + describe(report.settings()) + "\n\n";
    }

    private static String describe(Map<String, String> values) {
        StringBuilder out = new StringBuilder();
        values.forEach((k, v) -> out.append(out.length() == 0 ? "" : ", ").append(k).append(" ").append(v));
        return out.toString();
    }
}
