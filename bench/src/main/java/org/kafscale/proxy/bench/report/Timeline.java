package org.kafscale.proxy.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run saw over time, for the charts of its HTML report: values of named series on named
 * charts, each stamped with the seconds since the run started, and events (a chaos action, a
 * workload starting) to mark on every chart. Safe to record into from several threads (the
 * workloads and the samplers).
 */
public final class Timeline {
    private final long startNanos = System.nanoTime();
    private final Map<String, Chart> charts = new LinkedHashMap<>();
    private final List<Event> events = new ArrayList<>();

    /** One value of {@code series} on the chart {@code title} (whose values are in {@code unit}), now. */
    public synchronized void record(String title, String unit, String series, double value) {
        charts.computeIfAbsent(title, t -> new Chart(t, unit, new LinkedHashMap<>()))
                .series().computeIfAbsent(series, s -> new ArrayList<>()).add(new Point(secondsNow(), value));
    }

    /** Something that happened now, drawn as a vertical line on every chart. */
    public synchronized void event(String label) {
        events.add(new Event(secondsNow(), label));
    }

    public synchronized List<Chart> charts() {
        List<Chart> copy = new ArrayList<>();
        charts.values().forEach(c -> {
            Map<String, List<Point>> series = new LinkedHashMap<>();
            c.series().forEach((name, points) -> series.put(name, List.copyOf(points)));
            copy.add(new Chart(c.title(), c.unit(), series));
        });
        return copy;
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    private double secondsNow() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    public record Point(double seconds, double value) {
    }

    /** A chart: its series by name, each a list of points in time order. */
    public record Chart(String title, String unit, Map<String, List<Point>> series) {
    }

    public record Event(double seconds, String label) {
    }
}
