package org.kafscale.proxy.app.health;

import java.util.List;
import org.kafscale.proxy.core.audit.AuditTrail;
import org.kafscale.proxy.core.backend.BrokerApiVersionsProbe;
import org.kafscale.proxy.discovery.TopologySource;

/** The degradations the proxy reports, each read from the part that already keeps it. */
public final class DegradationChecks {
    private DegradationChecks() {
    }

    /** {@code etcd_unreadable}: reads of the topology source fail, and the proxy routes on its last good one. */
    public static DegradationCheck topologySource(TopologySource topology) {
        return () -> topology.failingReads()
                .map(f -> List.of(new HealthReason("etcd_unreadable", f.detail(), f.since())))
                .orElse(List.of());
    }

    /** {@code broker_unreachable}, one per listed broker whose last ApiVersions probe (every 2 s) failed. */
    public static DegradationCheck brokers(BrokerApiVersionsProbe probe) {
        return () -> probe.unreachable().values().stream()
                .sorted((a, b) -> Integer.compare(a.broker().id(), b.broker().id()))
                .map(u -> new HealthReason("broker_unreachable", "broker " + u.broker().id() + " at "
                        + u.broker().host() + ":" + u.broker().port() + ": " + u.failure(), u.since()))
                .toList();
    }

    /** {@code audit_sink_down}, one per audit sink whose last write failed (its events are dropped meanwhile). */
    public static DegradationCheck audit(AuditTrail trail) {
        return () -> trail.outages().stream()
                .map(o -> new HealthReason("audit_sink_down", "audit sink " + o.sink() + ": " + o.failure(), o.since()))
                .toList();
    }
}
