package org.kafscale.proxy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.kafscale.proxy.bench.proxy.ProxyCounters;
import org.kafscale.proxy.bench.report.Row;
import org.kafscale.proxy.bench.report.Timeline;
import org.kafscale.proxy.bench.workload.ConsumeThroughput;
import org.kafscale.proxy.bench.workload.ProduceThroughput;

/**
 * What TLS costs through the proxy (issue 16), as two comparisons, each in alternating rounds of
 * its own:
 * <ul>
 *   <li>TLS at the proxy's listener only, the brokers plaintext (TLS ends at the edge, the common
 *       deployment), against the plaintext brokers directly: what turning on the listener's TLS
 *       costs a client that had none;</li>
 *   <li>TLS on both sides against TLS directly to the brokers (whose replication is TLS too):
 *       what the proxy adds when everything is encrypted.</li>
 * </ul>
 * Produce and consume throughput only, with the same record count and clients as the plaintext
 * rows. The two clusters are never loaded at once: each comparison runs while the other idles.
 */
final class TlsCost {
    private static final double MIB = 1024 * 1024;
    private static final int WARMUP_RECORDS = 50_000;

    /**
     * The four routes, two comparisons of a proxied route against its direct one, and the
     * counters of the two proxies, for their CPU per MiB beside the plaintext proxies'.
     */
    record Routes(Route plaintextDirect, Route tlsAtProxy, Route tlsDirect, Route tlsBothSides,
                  Map<Route, ProxyCounters> counters) {
    }

    private final BenchSettings settings;
    private final Timeline timeline;
    private final int records;

    TlsCost(BenchSettings settings, Timeline timeline, int records) {
        this.settings = settings;
        this.timeline = timeline;
        this.records = records;
    }

    List<Row> run(Routes routes) throws Exception {
        timeline.event("TLS");
        List<Row> rows = new ArrayList<>();
        rows.addAll(compare(routes.plaintextDirect(), routes.tlsAtProxy(),
                "TLS at the proxy's listener, brokers plaintext, vs plaintext direct", routes.counters()));
        rows.addAll(compare(routes.tlsDirect(), routes.tlsBothSides(), "TLS on both sides of the proxy vs TLS direct",
                routes.counters()));
        return rows;
    }

    private List<Row> compare(Route direct, Route proxied, String what, Map<Route, ProxyCounters> counters)
            throws Exception {
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        List<Route> pair = List.of(direct, proxied);
        // A TLS connection's first MiB run cold (handshake, cipher JIT): unmeasured runs first.
        for (Route route : List.of(proxied, direct)) {
            ProduceThroughput.run(route.bootstrap(), route.clientSecurity(), Suite.THROUGHPUT_TOPIC, WARMUP_RECORDS,
                    settings.recordBytes());
            ConsumeThroughput.run(route.bootstrap(), route.clientSecurity(), Suite.THROUGHPUT_TOPIC, WARMUP_RECORDS);
        }
        Map<Route, List<Double>> produced = Alternation.run(settings.rounds(), pair, (route, round) -> {
            double mib = costed(route, counters, cpu, "produce", () -> ProduceThroughput.run(route.bootstrap(),
                    route.clientSecurity(), Suite.THROUGHPUT_TOPIC, records, settings.recordBytes()))
                    * settings.recordBytes() / MIB;
            Suite.log("TLS produce round %d %s: %.1f MiB/s", round, route.name(), mib);
            timeline.record("TLS produce throughput", "MiB/s", route.name(), mib);
            return mib;
        });
        Map<Route, List<Double>> consumed = Alternation.run(settings.rounds(), pair, (route, round) -> {
            double mib = costed(route, counters, cpu, "consume", () -> ConsumeThroughput.run(route.bootstrap(),
                    route.clientSecurity(), Suite.THROUGHPUT_TOPIC, records)) / MIB;
            Suite.log("TLS consume round %d %s: %.1f MiB/s", round, route.name(), mib);
            timeline.record("TLS consume throughput", "MiB/s", route.name(), mib);
            return mib;
        });
        List<Row> rows = new ArrayList<>(List.of(
                Row.compared("Produce throughput, " + what, "throughput", "MiB/s", produced.get(direct),
                        produced.get(proxied), List.of(), null),
                Row.compared("Consume throughput, " + what, "throughput", "MiB/s", consumed.get(direct),
                        consumed.get(proxied), List.of(), null)));
        cpu.forEach((workload, perMib) -> rows.add(Row.proxyOnly("Proxy CPU, " + workload + " (" + proxied.name()
                + "), proxy threads (no JIT, no GC)", "CPU per MiB proxied", "ms/MiB", perMib, List.of(), null)));
        return rows;
    }

    /**
     * Runs {@code workload} on {@code route}; when the route is a proxy with counters, adds the
     * CPU its own threads spent per MiB to {@code cpu}, under {@code name}.
     */
    private static double costed(Route route, Map<Route, ProxyCounters> counters, Map<String, List<Double>> cpu,
                                 String name, Callable<Double> workload) throws Exception {
        ProxyCounters proxy = counters.get(route);
        if (proxy == null) {
            return workload.call();
        }
        ProxyCounters.Costed<Double> run = proxy.during(workload);
        cpu.computeIfAbsent(name, n -> new ArrayList<>()).add(run.cost().threadCpuSecondsPerMib() * 1000);
        return run.result();
    }
}
