package org.kafscale.proxy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one measurement per route per round, rotating which route goes first each round, so that
 * drift on a shared machine (another build starting, the page cache filling) falls on every route
 * alike instead of on whichever always runs second.
 */
final class Alternation {
    private Alternation() {
    }

    interface Measurement<T> {
        T run(Route route, int round) throws Exception;
    }

    static <T> Map<Route, List<T>> run(int rounds, List<Route> routes, Measurement<T> measurement) throws Exception {
        Map<Route, List<T>> results = new LinkedHashMap<>();
        routes.forEach(r -> results.put(r, new ArrayList<>()));
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < routes.size(); i++) {
                Route route = routes.get((i + round) % routes.size());
                results.get(route).add(measurement.run(route, round));
            }
        }
        return results;
    }
}
