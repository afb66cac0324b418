package org.kafscale.proxy.bench.report;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The virtual-cluster comparison's table (issue 28) in Markdown: each row's values through the
 * proxy without a gateway file and through the proxy placing the client in a virtual cluster,
 * their medians, the median of each round's ratio (with / without) and every round's value, so
 * that a reader sees the spread behind the ratio. Goes into its own section of
 * docs/benchmarks.md ({@link #SECTION}).
 */
public final class VirtualClusterTable {
    public static final MarkedSection SECTION = new MarkedSection("bench:tenants");
    /** The encryption comparison's section (issue 29): the same table, its own columns' names. */
    public static final MarkedSection ENCRYPTION_SECTION = new MarkedSection("bench:encryption");

    private VirtualClusterTable() {
    }

    /**
     * The table of {@code report}, whose rows hold the route without the gateway file as
     * {@code direct} and the virtual cluster's as {@code proxy}.
     */
    public static String render(BenchReport report) {
        return render(report, "One virtual cluster", "virtual cluster");
    }

    /** As {@link #render(BenchReport)}, the gateway file's columns named {@code with} ({@code withShort} for its rounds). */
    public static String render(BenchReport report, String with, String withShort) {
        return render(report, "No gateway file", with, withShort);
    }

    /**
     * As {@link #render(BenchReport, String, String)}, the rows' {@code direct} route named
     * {@code without} (the reference the ratio is against).
     */
    public static String render(BenchReport report, String without, String with, String withShort) {
        StringBuilder md = new StringBuilder(MarkdownTable.header(report));
        md.append("| Workload | Metric | Unit | " + without + " (median) | " + with + " (median)"
                + " | With/without (median of rounds) | Rounds, " + without.toLowerCase(java.util.Locale.ROOT)
                + " | Rounds, " + withShort + " |\n");
        md.append("|---|---|---|---:|---:|---:|---|---|\n");
        for (Row row : report.rows()) {
            md.append("| ").append(row.workload())
                    .append(" | ").append(row.metric())
                    .append(" | ").append(row.unit())
                    .append(" | ").append(Format.number(row.directMedian()))
                    .append(" | ").append(Format.number(row.proxyMedian()))
                    .append(" | ").append(Format.number(row.ratio()))
                    .append(" | ").append(rounds(row.direct()))
                    .append(" | ").append(rounds(row.proxy()))
                    .append(" |\n");
        }
        return md.toString();
    }

    private static String rounds(List<Double> values) {
        return values.stream().map(Format::number).collect(Collectors.joining(" "));
    }
}
