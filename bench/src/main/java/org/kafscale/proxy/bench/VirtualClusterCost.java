package org.kafscale.proxy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.workload.ConsumeThroughput;
import org.kafscale.proxy.bench.workload.ProduceThroughput;

/**
 * What a gateway feature costs: the bench's produce and consume throughput workloads through two
 * proxies of the same build, both with SASL on their listener, one without a gateway file and one
 * with the feature's (a virtual cluster with a topic prefix, issue 28; an encryption rule, issue
 * 29), in alternating rounds, each route on its own topic. Each row holds both routes' values round by round, the route without the gateway file
 * where the bench's rows hold direct's, so a row's ratio is with / without.
 */
final class VirtualClusterCost {
    private static final double MIB = 1024 * 1024;

    private final BenchSettings settings;
    private final Route without;
    private final Route with;
    private final Map<Route, ProxyCounters> counters;
    private final Map<Route, String> topics;
    private final Map<Route, List<ProxyCounters.Cost>> produceCosts = new LinkedHashMap<>();
    private final Map<Route, List<ProxyCounters.Cost>> consumeCosts = new LinkedHashMap<>();
    private int records;

    /**
     * @param without the proxy with SASL and no gateway file
     * @param with the proxy with SASL and the gateway file
     * @param counters both proxies' counters, by route
     */
    VirtualClusterCost(BenchSettings settings, Route without, Route with, Map<Route, ProxyCounters> counters) {
        this(settings, without, with, counters, Suite.THROUGHPUT_TOPIC);
    }

    /** As above, the proxy with the gateway file's clients on {@code withTopic}. */
    VirtualClusterCost(BenchSettings settings, Route without, Route with, Map<Route, ProxyCounters> counters,
                       String withTopic) {
        this.settings = settings;
        this.without = without;
        this.with = with;
        this.counters = Map.copyOf(counters);
        this.topics = Map.of(without, Suite.THROUGHPUT_TOPIC, with, withTopic);
        for (Route route : List.of(without, with)) {
            produceCosts.put(route, new ArrayList<>());
            consumeCosts.put(route, new ArrayList<>());
        }
    }

    List<Row> run() throws Exception {
        warmUp();
        List<Route> pair = List.of(without, with);
        Map<Route, List<Double>> produced = Alternation.run(settings.rounds(), pair, (route, round) -> {
            double mib = costed(route, produceCosts, () -> ProduceThroughput.run(route.bootstrap(),
                    route.clientSecurity(), topics.get(route), records, settings.recordBytes()))
                    * settings.recordBytes() / MIB;
            Suite.log("produce round %d %s: %.1f MiB/s", round, route.name(), mib);
            return mib;
        });
        Map<Route, List<Double>> consumed = Alternation.run(settings.rounds(), pair, (route, round) -> {
            double mib = costed(route, consumeCosts, () -> ConsumeThroughput.run(route.bootstrap(),
                    route.clientSecurity(), topics.get(route), records)) / MIB;
            Suite.log("consume round %d %s: %.1f MiB/s", round, route.name(), mib);
            return mib;
        });
        List<Row> rows = new ArrayList<>(List.of(
                Row.compared("Produce throughput (1 KiB, acks=all, 12 partitions)", "throughput", "MiB/s",
                        produced.get(without), produced.get(with), List.of(), null),
                Row.compared("Consume throughput (same data, from the start)", "throughput", "MiB/s",
                        consumed.get(without), consumed.get(with), List.of(), null)));
        rows.addAll(costRows("produce", produceCosts));
        rows.addAll(costRows("consume", consumeCosts));
        return rows;
    }

    /** Records of a measured run, as the warm-up sized them. */
    int records() {
        return records;
    }

    /**
     * As the bench's warm-up ({@code Suite}), with the proxy without the gateway file where the
     * bench has direct: unmeasured runs on both routes, the runs sized from its rate, then
     * {@code bench.warmupRounds} unmeasured rounds of that size, the size taken again from the
     * last of them.
     */
    private void warmUp() {
        for (Route route : List.of(with, without)) {
            ProduceThroughput.run(route.bootstrap(), route.clientSecurity(), topics.get(route),
                    Suite.WARMUP_RECORDS, settings.recordBytes());
            ConsumeThroughput.run(route.bootstrap(), route.clientSecurity(), topics.get(route),
                    Suite.WARMUP_RECORDS);
        }
        double rate = ProduceThroughput.run(without.bootstrap(), without.clientSecurity(), Suite.THROUGHPUT_TOPIC,
                Suite.WARMUP_RECORDS, settings.recordBytes());
        records = Suite.recordsFor(settings, rate);
        Suite.log("warm-up: %s %.0f records/s; measured runs produce %d records", without.name(), rate, records);
        for (int round = 0; round < settings.warmupRounds(); round++) {
            for (Route route : List.of(with, without)) {
                double producedRate = ProduceThroughput.run(route.bootstrap(), route.clientSecurity(),
                        topics.get(route), records, settings.recordBytes());
                double consumed = ConsumeThroughput.run(route.bootstrap(), route.clientSecurity(),
                        topics.get(route), records);
                Suite.log("warm-up round %d %s: produce %.1f MiB/s, consume %.1f MiB/s", round, route.name(),
                        producedRate * settings.recordBytes() / MIB, consumed / MIB);
                if (route == without) {
                    rate = producedRate;
                }
            }
        }
        if (settings.warmupRounds() > 0) {
            records = Suite.recordsFor(settings, rate);
            Suite.log("warm: %s %.0f records/s; measured runs produce %d records", without.name(), rate, records);
        }
    }

    private double costed(Route route, Map<Route, List<ProxyCounters.Cost>> costs,
                          Callable<Double> workload) throws Exception {
        ProxyCounters.Costed<Double> run = counters.get(route).during(workload);
        costs.get(route).add(run.cost());
        return run.result();
    }

    /** CPU (whole process and the proxy's own threads) and allocation per MiB, both routes in a row. */
    private List<Row> costRows(String workload, Map<Route, List<ProxyCounters.Cost>> costs) {
        return List.of(
                costRow("Proxy CPU, " + workload + ", whole process", "CPU per MiB proxied", "ms/MiB", costs,
                        c -> c.cpuSecondsPerMib() * 1000),
                costRow("Proxy CPU, " + workload + ", proxy threads (no JIT, no GC)", "CPU per MiB proxied", "ms/MiB",
                        costs, c -> c.threadCpuSecondsPerMib() * 1000),
                costRow("Proxy allocation, " + workload, "heap allocated per MiB proxied", "KiB/MiB", costs,
                        c -> c.allocatedBytesPerMib() / 1024));
    }

    private Row costRow(String name, String metric, String unit, Map<Route, List<ProxyCounters.Cost>> costs,
                        ToDoubleFunction<ProxyCounters.Cost> pick) {
        return Row.compared(name, metric, unit, each(costs.get(without), pick), each(costs.get(with), pick), List.of(),
                null);
    }

    private static List<Double> each(List<ProxyCounters.Cost> costs, ToDoubleFunction<ProxyCounters.Cost> pick) {
        return costs.stream().map(pick::applyAsDouble).toList();
    }
}
