package org.kafscale.proxy.app;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.app.audit.AuditRuntime;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.health.CertificateExpiry;
import org.kafscale.proxy.app.health.DegradationCheck;
import org.kafscale.proxy.app.health.DegradationChecks;
import org.kafscale.proxy.app.health.HealthStates;
import org.kafscale.proxy.app.health.Readiness;
import org.kafscale.proxy.core.backend.BrokerApiVersionsProbe;
import org.kafscale.proxy.discovery.TopologySource;

/** The health states behind {@code /health}: readiness, and every degradation the proxy can see. */
final class HealthAssembly {
    /** How often the state is evaluated when nobody asks, so its "since" and its log line are timely. */
    private static final Duration EVALUATE_EVERY = Duration.ofSeconds(1);

    private HealthAssembly() {
    }

    static HealthStates start(ProxyConfig config, Readiness readiness, TopologySource topology,
                              BrokerApiVersionsProbe brokers, Optional<AuditRuntime> audit,
                              ScheduledExecutorService housekeeping) {
        List<DegradationCheck> checks = new ArrayList<>();
        checks.add(DegradationChecks.topologySource(topology));
        checks.add(DegradationChecks.brokers(brokers));
        audit.ifPresent(trail -> checks.add(DegradationChecks.audit(trail.trail())));
        config.listenerTls().ifPresent(tls -> checks.add(
                new CertificateExpiry("the Kafka listener", tls.keyMaterial(), config.certificateExpiryWarning(),
                        Clock.systemUTC())));
        HealthStates states = HealthStates.of(readiness, checks);
        housekeeping.scheduleWithFixedDelay(states::current, 0, EVALUATE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return states;
    }
}
