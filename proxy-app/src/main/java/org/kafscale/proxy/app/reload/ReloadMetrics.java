package org.kafscale.proxy.app.reload;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code kafscale_proxy_config_reloads_total{result}} and
 * {@code kafscale_proxy_config_last_reload_success_timestamp_seconds}: how reloads went, and when
 * the configuration in force was last put in force (the start, until a reload applies one).
 */
final class ReloadMetrics {
    private final Map<ReloadOutcome.Result, Counter> reloads = new EnumMap<>(ReloadOutcome.Result.class);
    private final AtomicLong lastSuccessMillis = new AtomicLong(System.currentTimeMillis());

    ReloadMetrics(MeterRegistry registry) {
        for (ReloadOutcome.Result result : ReloadOutcome.Result.values()) {
            reloads.put(result, Counter.builder("kafscale_proxy_config_reloads")
                    .description("Reloads of the configuration, by outcome: applied, unchanged (nothing a reload "
                            + "applies changed) or refused (invalid: the running configuration stays)")
                    .tag("result", result.label()).register(registry));
        }
        Gauge.builder("kafscale_proxy_config_last_reload_success_timestamp_seconds", lastSuccessMillis,
                        millis -> millis.get() / 1000.0)
                .description("When the configuration in force was put in force: the start, or the last reload "
                        + "that applied or found nothing to apply")
                .register(registry);
    }

    void record(ReloadOutcome outcome) {
        reloads.get(outcome.result()).increment();
        if (outcome.result() != ReloadOutcome.Result.REFUSED) {
            lastSuccessMillis.set(outcome.at().toEpochMilli());
        }
    }
}
