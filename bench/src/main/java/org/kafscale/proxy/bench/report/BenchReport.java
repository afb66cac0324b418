package org.kafscale.proxy.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything one benchmark run produced, as written to JSON for comparing commits.
 *
 * @param environment machine and versions (cpu, cores, os, java, kafka, netty)
 * @param settings what the workloads were run with (rounds, record counts, rates)
 */
public record BenchReport(String command, String date, String commit, Map<String, String> environment,
                          Map<String, String> settings, List<Row> rows) {

    /**
     * One line per row for the HTML report's summary: PASS or FAIL against its target (or the
     * plain value when it has none), the proxy's median, and its ratio or added latency to direct.
     */
    public List<Map.Entry<String, String>> verdicts() {
        List<Map.Entry<String, String>> lines = new ArrayList<>();
        for (Row row : rows) {
            String name = row.workload() + " — " + row.metric();
            if (row.unavailable() != null) {
                lines.add(Map.entry(name, "not measured: " + row.unavailable()));
                continue;
            }
            StringBuilder value = new StringBuilder();
            if (row.met() != null) {
                value.append(row.met() ? "PASS " : "FAIL ");
            }
            value.append(Format.number(row.proxyMedian())).append(' ').append(row.unit());
            if (!row.direct().isEmpty()) {
                value.append(", ×").append(Format.number(row.ratio())).append(" direct (")
                        .append(Format.number(row.added())).append(" added)");
            }
            if (!row.peer().isEmpty()) {
                value.append("; Kroxylicious ").append(Format.number(row.peerMedian()));
            }
            if (row.target() != null) {
                value.append("; target ").append(row.target().describe());
            }
            lines.add(Map.entry(name, value.toString()));
        }
        return lines;
    }
}
