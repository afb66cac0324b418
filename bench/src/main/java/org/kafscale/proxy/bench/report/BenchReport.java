package org.kafscale.proxy.bench.report;

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
}
