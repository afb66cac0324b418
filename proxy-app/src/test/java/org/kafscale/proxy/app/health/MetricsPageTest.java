package org.kafscale.proxy.app.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Prometheus page, whole or for the families a scraper names, from a real registry. */
class MetricsPageTest {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final MetricsPage page = MetricsPage.of(registry);

    MetricsPageTest() {
        Counter.builder("kafscale_proxy_client_bytes_in").baseUnit("bytes").register(registry).increment(5);
        Gauge.builder("kafscale_proxy_fetch_read_ahead_bytes", () -> 7).baseUnit("bytes").register(registry);
        Timer.builder("kafscale_proxy_requests").tag("api", "Produce").register(registry).record(Duration.ofMillis(3));
    }

    /** The sample lines of a page (its comments left out). */
    private static List<String> samples(String page) {
        return Arrays.stream(page.split("\n")).filter(line -> !line.startsWith("#") && !line.isBlank()).toList();
    }

    @Test
    void withNoNamesEveryFamilyIsOnThePage() {
        String all = page.render(List.of());

        assertTrue(all.contains("kafscale_proxy_client_bytes_in_bytes_total 5.0"), all);
        assertTrue(all.contains("kafscale_proxy_fetch_read_ahead_bytes 7.0"), all);
        assertTrue(all.contains("kafscale_proxy_requests_seconds_count{api=\"Produce\"} 1"), all);
    }

    @Test
    void onlyTheNamedFamiliesAreOnThePage() {
        String some = page.render(List.of("kafscale_proxy_fetch_read_ahead_bytes", "kafscale_proxy_requests_seconds"));

        assertEquals(List.of("kafscale_proxy_fetch_read_ahead_bytes 7.0",
                "kafscale_proxy_requests_seconds_count{api=\"Produce\"} 1",
                "kafscale_proxy_requests_seconds_sum{api=\"Produce\"} 0.003"), samples(some).stream().sorted().toList());
    }

    @Test
    void aCounterMayBeNamedAsItsSamplesShowIt() {
        String counter = page.render(List.of("kafscale_proxy_client_bytes_in_bytes_total"));

        assertEquals(List.of("kafscale_proxy_client_bytes_in_bytes_total 5.0"), samples(counter));
    }

    @Test
    void aNameNoFamilyHasGivesAnEmptyPage() {
        assertEquals(List.of(), samples(page.render(List.of("kafscale_proxy_no_such_metric"))));
    }
}
