package org.kafscale.proxy.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of the result table: a metric measured directly and through the proxy in alternating
 * rounds ({@code direct.get(i)} and {@code proxy.get(i)} come from round i), compared round by round. For a metric only the proxy has (its CPU, its allocations),
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

    /**
     * The median of each round's proxy/direct ratio. Each round measures both routes back to back,
     * so a round's ratio is taken under one load; on a shared machine whose load drifts between
     * rounds this is steadier than the ratio of the two medians.
     */
    public Double ratio() {
        return median(perRound((d, p) -> d == 0 ? null : p / d));
    }

    /** The median of each round's proxy − direct (what the proxy adds to a latency). */
    public Double added() {
        return median(perRound((d, p) -> p - d));
    }

    private List<Double> perRound(java.util.function.BinaryOperator<Double> compare) {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < Math.min(direct.size(), proxy.size()); i++) {
            Double value = compare.apply(direct.get(i), proxy.get(i));
            if (value != null) {
                out.add(value);
            }
        }
        return out;
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
