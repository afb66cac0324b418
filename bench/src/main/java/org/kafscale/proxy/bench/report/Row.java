package org.kafscale.proxy.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of the result table: a metric measured directly and through the proxy in alternating
 * rounds, compared by the medians. For a metric only the proxy has (its CPU, its allocations),
 * {@code direct} is empty. {@code unavailable} holds the reason a workload could not run.
 */
public record Row(String workload, String metric, String unit, List<Double> direct, List<Double> proxy,
                  Target target, String unavailable) {

    public static Row compared(String workload, String metric, String unit, List<Double> direct, List<Double> proxy,
                               Target target) {
        return new Row(workload, metric, unit, List.copyOf(direct), List.copyOf(proxy), target, null);
    }

    public static Row proxyOnly(String workload, String metric, String unit, List<Double> proxy, Target target) {
        return new Row(workload, metric, unit, List.of(), List.copyOf(proxy), target, null);
    }

    public static Row unavailable(String workload, String metric, Target target, String reason) {
        return new Row(workload, metric, "", List.of(), List.of(), target, reason);
    }

    public Double directMedian() {
        return median(direct);
    }

    public Double proxyMedian() {
        return median(proxy);
    }

    /** Proxy median over direct median. */
    public Double ratio() {
        Double d = directMedian();
        Double p = proxyMedian();
        return d == null || p == null || d == 0 ? null : p / d;
    }

    /** Proxy median minus direct median (what the proxy adds to a latency). */
    public Double added() {
        Double d = directMedian();
        Double p = proxyMedian();
        return d == null || p == null ? null : p - d;
    }

    /** Whether the target is met; null when there is no target or nothing was measured. */
    public Boolean met() {
        if (target == null || unavailable != null || proxy.isEmpty()) {
            return null;
        }
        return target.metBy(this);
    }

    public static Double median(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
