package org.kafscale.proxy.app.audit;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;
import org.kafscale.proxy.app.config.AuditSettings;
import org.kafscale.proxy.core.audit.AuditEvent;
import org.kafscale.proxy.core.audit.AuditPolicy;
import org.kafscale.proxy.core.audit.AuditSinkObserver;
import org.kafscale.proxy.core.audit.AuditSubjects;
import org.kafscale.proxy.core.audit.AuditTrail;
import org.kafscale.proxy.core.audit.KafkaTopicSink;
import org.kafscale.proxy.core.audit.RollingFileSink;
import org.kafscale.proxy.core.audit.SinkQueue;
import org.kafscale.proxy.core.audit.StreamSink;
import org.kafscale.proxy.core.backend.security.BackendSecurity;
import org.kafscale.proxy.core.policy.PolicyConnection;
import org.kafscale.proxy.core.security.OwnConnections;
import org.kafscale.proxy.core.security.authz.AuthorizationObserver;
import org.kafscale.proxy.core.security.sasl.AuthenticationListener;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.topology.Topology;
import org.kafscale.proxy.lfs.tracker.LfsTracker;

/**
 * The audit trail as the proxy runs it: the sinks of the gateway file's {@code audit} section, each
 * behind its queue; the policy of the chain (mutating calls); and the listeners the SASL layer and
 * authorization tell of logins and denials. Off (everything a no-op) without the section.
 */
public final class AuditRuntime implements AutoCloseable {
    private final AuditTrail trail;
    private final AuditSubjects subjects;
    private final OwnConnections own;
    private final Clock clock;

    private AuditRuntime(AuditTrail trail, AuditSubjects subjects, OwnConnections own, Clock clock) {
        this.trail = trail;
        this.subjects = subjects;
        this.own = own;
        this.clock = clock;
    }

    /** Starts each configured sink's thread; the topic's producer is made at its first write. */
    public static AuditRuntime start(AuditSettings settings, Topology topology, BackendSecurity backendSecurity,
                                     VirtualClusters clusters, OwnConnections own, AuditSinkObserver observer) {
        List<SinkQueue> sinks = new ArrayList<>();
        settings.file().ifPresent(file -> sinks.add(new SinkQueue(new RollingFileSink(file, settings.maxFileBytes(),
                settings.maxFiles()), settings.queueCapacity(), observer)));
        if (settings.stdout()) {
            sinks.add(new SinkQueue(new StreamSink(System.out), settings.queueCapacity(), observer));
        }
        settings.topic().ifPresent(topic -> sinks.add(new SinkQueue(new KafkaTopicSink(topic,
                () -> AuditProducerConfig.of(topology, backendSecurity)), settings.queueCapacity(), observer)));
        return new AuditRuntime(new AuditTrail(sinks, settings.failClosed()), new AuditSubjects(clusters), own,
                Clock.systemUTC());
    }

    public AuditTrail trail() {
        return trail;
    }

    /** The chain's policy: mutating calls and their outcomes; with failClosed, their refusal. */
    public AuditPolicy policy() {
        return new AuditPolicy(trail, subjects, clock);
    }

    /** Each login, but the proxy's own readiness probe's (told by the socket's address, which no header forges). */
    public AuthenticationListener authentications() {
        return attempt -> {
            if (own.isOwn(attempt.peerAddress())) {
                return;
            }
            trail.record(AuditEvent.authentication(clock.instant(),
                    subjects.of(attempt.connection(), attempt.clientAddress(), attempt.principal(),
                            attempt.virtualCluster()),
                    attempt.mechanism(), attempt.outcome().label(), attempt.reason()));
        };
    }

    /** LFS uploads and downloads, as the LFS routes' ops events tell of them. */
    public LfsTracker lfs() {
        return new LfsAudit(trail, clock);
    }

    /** {@code metrics}, and each denial as an event. */
    public AuthorizationObserver authorization(AuthorizationObserver metrics) {
        return new AuthorizationObserver() {
            @Override
            public void refused(ApiKeys api, ResourceType type) {
                metrics.refused(api, type);
            }

            @Override
            public void denied(PolicyConnection connection, ApiKeys api, List<Denial> denials) {
                metrics.denied(connection, api, denials);
                trail.record(AuditEvent.denied(clock.instant(), subjects.of(connection), api.name,
                        denials.stream().map(d -> new AuditEvent.Denial(d.type().name(), d.name(),
                                d.operation().name())).toList()));
            }
        };
    }

    /** Writes what is queued (a few seconds at most per sink), then closes the sinks. */
    @Override
    public void close() {
        trail.close();
    }
}
