package org.kafscale.proxy.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * One line of the result table: a metric measured directly, through our proxy and through the
 * peer proxy (Kroxylicious) in alternating rounds ({@code direct.get(i)}, {@code proxy.get(i)} and
 * {@code peer.get(i)} come from round i), compared round by round. For a metric only a proxy has
 * (its CPU, its allocations), {@code direct} is empty. {@code peer} is empty when the run had no
 * peer. {@code unavailable} holds the reason a workload could not run.
 */
public record Row(String workload, String metric, String unit, List<Double> direct, List<Double> proxy,
                  List<Double> peer, Target target, String unavailable) {

    public static Row compared(String workload, String metric, String unit, List<Double> direct, List<Double> proxy,
                               List<Double> peer, Target target) {
        return new Row(workload, metric, unit, List.copyOf(direct), List.copyOf(proxy), List.copyOf(peer), target, null);
    }

    public static Row proxyOnly(String workload, String metric, String unit, List<Double> proxy, List<Double> peer,
                                Target target) {
        return new Row(workload, metric, unit, List.of(), List.copyOf(proxy), List.copyOf(peer), target, null);
    }

    public static Row unavailable(String workload, String metric, Target target, String reason) {
        return new Row(workload, metric, "", List.of(), List.of(), List.of(), target, reason);
    }

    public Double directMedian() {
        return median(direct);
    }

    public Double proxyMedian() {
        return median(proxy);
    }

    public Double peerMedian() {
        return median(peer);
    }

    /**
     * The median of each round's proxy/direct ratio. Each round measures every route back to back,
     * so a round's ratio is taken under one load; on a shared machine whose load drifts between
     * rounds this is steadier than the ratio of the two medians.
     */
    public Double ratio() {
        return median(perRound(proxy, (d, p) -> d == 0 ? null : p / d));
    }

    /** The median of each round's proxy − direct (what the proxy adds to a latency). */
    public Double added() {
        return median(perRound(proxy, (d, p) -> p - d));
    }

    /** As {@link #ratio()}, for the peer proxy. */
    public Double peerRatio() {
        return median(perRound(peer, (d, p) -> d == 0 ? null : p / d));
    }

    /** As {@link #added()}, for the peer proxy. */
    public Double peerAdded() {
        return median(perRound(peer, (d, p) -> p - d));
    }

    private List<Double> perRound(List<Double> through, BinaryOperator<Double> compare) {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < Math.min(direct.size(), through.size()); i++) {
            Double value = compare.apply(direct.get(i), through.get(i));
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
