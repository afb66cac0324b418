package org.kafscale.proxy.app.metrics;

import io.micrometer.core.instrument.Counter;
import org.kafscale.proxy.core.security.sasl.SaslObserver;
import org.kafscale.proxy.core.audit.AuditSinkObserver;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import org.apache.kafka.common.resource.ResourceType;
import org.kafscale.proxy.core.security.authz.AuthorizationObserver;
import org.kafscale.proxy.app.health.HealthState;
import org.kafscale.proxy.app.health.HealthStates;
import org.kafscale.proxy.app.health.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.netty.util.internal.PlatformDependent;
import java.util.EnumMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiKeys;
import org.kafscale.proxy.core.backend.BackendObserver;
import org.kafscale.proxy.core.encryption.EncryptionObserver;
import org.kafscale.proxy.core.hooks.RoutingObserver;
import org.kafscale.proxy.core.server.ConnectionListener;
import org.kafscale.proxy.core.server.ConnectionTimeout;
import org.kafscale.proxy.core.server.FrameBuffers;
import org.kafscale.proxy.core.server.KafkaProxyServer;
import org.kafscale.proxy.core.server.ReadPause;
import org.kafscale.proxy.core.quota.QuotaKind;
import org.kafscale.proxy.core.quota.QuotaObserver;
import org.kafscale.proxy.core.validation.ValidationObserver;
import org.kafscale.proxy.core.validation.ValidationRule;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.core.topology.RoutingGate;
import org.kafscale.proxy.discovery.TopologySource;

/**
 * The proxy's metrics, in Micrometer (exposed as Prometheus at {@code /metrics}): requests and
 * latency per API and version, client bytes, client connections, closes after a request, fan-out
 * width, retries by cause, broker channels, whether the proxy can route, the topology's age, how
 * many brokers it knows, and JVM and Netty memory. docs/metrics.md lists every series.
 */
public final class ProxyMetrics implements ConnectionListener, RoutingObserver, BackendObserver,
        SaslObserver, AuthorizationObserver, QuotaObserver, AuditSinkObserver, ValidationObserver,
        EncryptionObserver {
    private final MeterRegistry registry;
    /** Timer keys of the buckets for what a client may make up: any unknown key, any version out of range. */
    private static final int UNKNOWN = -1;
    private static final int UNKNOWN_VERSION = 0xffff;
    private final ConcurrentHashMap<Integer, Timer> requestTimers = new ConcurrentHashMap<>();
    private final AtomicInteger clientConnections = new AtomicInteger();
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter refusals;
    private final ConcurrentHashMap<String, Counter> retries = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> authorizationRefusals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ApiKeys, DistributionSummary> fanOutWidths = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, AtomicInteger> backendChannels = new ConcurrentHashMap<>();
    private final AtomicLong readAheadHeld = new AtomicLong();
    private final ConcurrentHashMap<ReadAheadOutcome, Counter> readAheads = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> authentications = new ConcurrentHashMap<>();
    private final EnumMap<ReadPause, Counter> readPauses = new EnumMap<>(ReadPause.class);
    /** By virtual cluster, principal and quota: bounded by the gateway file's principals. */
    /** By reason (unencrypted, undecryptable). */
    private final ConcurrentHashMap<String, Counter> encryptionRefusals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> quotaBytes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> quotaThrottles = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> quotaTimes = new ConcurrentHashMap<>();
    /** By sink (three at most) and reason (two). */
    private final ConcurrentHashMap<String, Counter> auditWritten = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> auditDropped = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> validationRefusals = new ConcurrentHashMap<>();

    public ProxyMetrics(MeterRegistry registry, TopologySource topology, RoutingGate gate) {
        this.registry = registry;
        this.bytesIn = Counter.builder("kafscale_proxy_client_bytes_in").baseUnit("bytes")
                .description("Bytes of Kafka requests read from clients").register(registry);
        this.bytesOut = Counter.builder("kafscale_proxy_client_bytes_out").baseUnit("bytes")
                .description("Bytes of Kafka answers written to clients").register(registry);
        this.refusals = Counter.builder("kafscale_proxy_closed_after_request")
                .description("Requests answered by closing the connection: not ready to route, or no answer exists")
                .register(registry);
        Gauge.builder("kafscale_proxy_fetch_read_ahead_bytes", readAheadHeld, AtomicLong::get).baseUnit("bytes")
                .description("Bytes of Fetch answers read ahead and held for clients' next Fetches").register(registry);
        Gauge.builder("kafscale_proxy_client_connections", clientConnections, AtomicInteger::get)
                .description("Open client connections").register(registry);
        Gauge.builder("kafscale_proxy_routable", gate, g -> g.routable() ? 1 : 0)
                .description("1 while the proxy may route (topology fresh), else 0").register(registry);
        Gauge.builder("kafscale_proxy_brokers_known", topology, t -> t.snapshot().brokers().size())
                .description("Brokers in the current topology snapshot").register(registry);
        Gauge.builder("kafscale_proxy_topology_age", topology, t -> t.millisSinceGoodRead() / 1000.0)
                .baseUnit("seconds").description("Time since the topology source was last read successfully (-0.001 before)")
                .register(registry);
        Gauge.builder("kafscale_proxy_netty_direct_memory", () -> PlatformDependent.usedDirectMemory())
                .baseUnit("bytes").description("Direct memory Netty has reserved").register(registry);
        Gauge.builder("kafscale_proxy_netty_pooled_direct_memory",
                        () -> FrameBuffers.allocator().metric().usedDirectMemory())
                .baseUnit("bytes").description("Direct memory in use by Netty's pooled allocator").register(registry);
        for (ReadPause reason : ReadPause.values()) {
            readPauses.put(reason, Counter.builder("kafscale_proxy_client_reads_paused").baseUnit("seconds")
                    .tag("reason", reason.label())
                    .description("Time reading from client connections was paused, by reason, summed over connections")
                    .register(registry));
        }
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
    }

    /**
     * Exposes what {@code /readyz} reports, so a dashboard shows when and why replicas left the
     * Service, and the listener's requests in flight (its own count, which a drain waits on).
     */
    public void watch(Readiness readiness, KafkaProxyServer listener) {
        Gauge.builder("kafscale_proxy_ready", readiness, r -> r.status().ready() ? 1 : 0)
                .description("1 while /readyz answers 200 (routable, read path probed, not draining), else 0")
                .register(registry);
        Gauge.builder("kafscale_proxy_requests_in_flight", listener, KafkaProxyServer::requestsInFlight)
                .description("Client requests read and not yet answered").register(registry);
        Gauge.builder("kafscale_proxy_partial_frame_bytes", listener, KafkaProxyServer::partialFrameBytes)
                .baseUnit("bytes").description("Bytes of client requests received in part, over all connections")
                .register(registry);
        Gauge.builder("kafscale_proxy_unread_answer_bytes", listener, KafkaProxyServer::unreadAnswerBytes)
                .baseUnit("bytes").description("Bytes of answers written and not yet read by their clients")
                .register(registry);
    }

    /** {@code kafscale_proxy_health_state{state}}: 1 for the state {@code /health} last reported, 0 for the others. */
    public void watch(HealthStates health) {
        for (HealthState state : HealthState.values()) {
            Gauge.builder("kafscale_proxy_health_state", health, h -> h.lastState() == state ? 1 : 0)
                    .tag("state", state.label())
                    .description("1 for the proxy's health state (starting, ready, degraded, draining, not_ready), else 0")
                    .register(registry);
        }
    }

    @Override
    public void refused(String limit) {
        Counter.builder("kafscale_proxy_client_connections_refused").tag("limit", limit)
                .description("Client connections refused: past the total or the per-address limit, or (sni) an unknown TLS server name")
                .register(registry).increment();
    }

    @Override
    public void timedOut(ConnectionTimeout timeout) {
        Counter.builder("kafscale_proxy_client_connections_timed_out").tag("timeout", timeout.label())
                .description("Client connections closed by a timeout: unauthenticated, frame read or idle")
                .register(registry).increment();
    }

    @Override
    public void readsPaused(ReadPause reason, long nanos) {
        readPauses.get(reason).increment(nanos / 1e9);
    }

    @Override
    public void opened() {
        clientConnections.incrementAndGet();
    }

    @Override
    public void closed() {
        clientConnections.decrementAndGet();
    }

    @Override
    public void requestCompleted(short apiKey, short apiVersion, long nanos, int requestBytes, int answerBytes,
                                 boolean closedConnection) {
        requestTimer(apiKey, apiVersion).record(nanos, TimeUnit.NANOSECONDS);
        bytesIn.increment(requestBytes);
        bytesOut.increment(answerBytes);
        if (closedConnection) {
            refusals.increment();
        }
    }

    @Override
    public void fannedOut(ApiKeys api, int brokers) {
        // Looked up first: the registering lambda captures this, so computeIfAbsent alone allocates per request.
        DistributionSummary widths = fanOutWidths.get(api);
        if (widths == null) {
            widths = fanOutWidths.computeIfAbsent(api, a -> DistributionSummary.builder("kafscale_proxy_fan_out_width")
                    .description("Brokers a request's first round went to (1: not split)").tag("api", a.name)
                    .register(registry));
        }
        widths.record(brokers);
    }

    @Override
    public void retried(ApiKeys api, RetryCause cause) {
        retries.computeIfAbsent(api.name + "/" + cause, k -> Counter.builder("kafscale_proxy_retries")
                .description("Parts of requests the proxy sent again, by cause").tag("api", api.name)
                .tag("cause", cause.name().toLowerCase(java.util.Locale.ROOT)).register(registry)).increment();
    }

    @Override
    public void written(String sink, int events) {
        auditWritten.computeIfAbsent(sink, k -> Counter.builder("kafscale_proxy_audit_events_written")
                .description("Audit events a sink wrote, by sink").tag("sink", sink).register(registry))
                .increment(events);
    }

    @Override
    public void dropped(String sink, String reason, int events) {
        auditDropped.computeIfAbsent(sink + "/" + reason, k -> Counter.builder("kafscale_proxy_audit_events_dropped")
                .description("Audit events a sink did not write: its queue was full, or its write failed")
                .tag("sink", sink).tag("reason", reason).register(registry)).increment(events);
    }

    /** Labels bounded by the enabled mechanisms (or {@code unsupported}) and the four outcomes. */
    @Override
    public void authentication(String mechanism, SaslObserver.Outcome outcome) {
        authentications.computeIfAbsent(mechanism + "/" + outcome, k -> Counter.builder(
                        "kafscale_proxy_sasl_authentications")
                .description("SASL authentications on the Kafka listener, by mechanism and outcome")
                .tag("mechanism", mechanism).tag("outcome", outcome.label()).register(registry)).increment();
    }

    @Override
    public void refused(ApiKeys api, ResourceType type) {
        authorizationRefusals.computeIfAbsent(api.name + "/" + type, k -> Counter.builder(
                        "kafscale_proxy_authorization_refusals")
                .description("Requests with a resource the ACLs refused, by API and resource type").tag("api", api.name)
                .tag("resource_type", type.name()).register(registry)).increment();
    }

    @Override
    public void refused(ValidationRule rule, int records) {
        validationRefusals.computeIfAbsent(rule.topics().pattern(), topics -> Counter.builder(
                        "kafscale_proxy_validation_refused_records")
                .description("Records found invalid by record validation (their partitions refused), by the rule's topics")
                .tag("topics", topics).register(registry)).increment(records);
    }

    @Override
    public void refusedRecord(String reason) {
        encryptionRefusals.computeIfAbsent(reason, k -> Counter.builder("kafscale_proxy_encryption_refused_records")
                .description("Fetched partitions of encrypted topics refused (CORRUPT_MESSAGE), by the first "
                        + "refused record's reason").tag("reason", reason).register(registry)).increment();
    }

    @Override
    public void counted(String virtualCluster, KafkaPrincipal principal, QuotaKind kind, long amount) {
        if (kind == QuotaKind.REQUEST_TIME) {
            quotaMeter(quotaTimes, "kafscale_proxy_quota_request_time", "seconds",
                    "Event-loop time charged to clients of virtual clusters with a request-time quota",
                    virtualCluster, principal, null).increment(amount / 1e9);
            return;
        }
        quotaMeter(quotaBytes, "kafscale_proxy_quota_bytes", "bytes",
                "Bytes counted against virtual clusters' byte-rate quotas, by virtual cluster, principal and quota",
                virtualCluster, principal, kind).increment(amount);
    }

    @Override
    public void throttled(String virtualCluster, KafkaPrincipal principal, QuotaKind kind, long millis) {
        quotaMeter(quotaThrottles, "kafscale_proxy_quota_throttle", "seconds",
                "Time clients were throttled past a quota, by virtual cluster, principal and quota",
                virtualCluster, principal, kind).increment(millis / 1000.0);
    }

    /** @param kind the {@code quota} label; null for a series of one kind */
    private Counter quotaMeter(ConcurrentHashMap<String, Counter> meters, String name, String unit, String description,
                               String virtualCluster, KafkaPrincipal principal, QuotaKind kind) {
        String key = virtualCluster + "/" + principal + "/" + (kind == null ? "" : kind.label());
        Counter counter = meters.get(key);
        if (counter != null) {
            return counter;
        }
        return meters.computeIfAbsent(key, k -> {
            Counter.Builder builder = Counter.builder(name).baseUnit(unit).description(description)
                    .tag("virtual_cluster", virtualCluster).tag("principal", principal.toString());
            return (kind == null ? builder : builder.tag("quota", kind.label())).register(registry);
        });
    }

    @Override
    public void readAheadHeld(long deltaBytes) {
        readAheadHeld.addAndGet(deltaBytes);
    }

    @Override
    public void readAhead(ReadAheadOutcome outcome) {
        readAheads.computeIfAbsent(outcome, o -> Counter.builder("kafscale_proxy_fetch_read_aheads")
                .description("Fetch answers read ahead, by what became of them").tag("outcome",
                        o.name().toLowerCase(java.util.Locale.ROOT)).register(registry)).increment();
    }

    @Override
    public void channelOpened(BrokerEndpoint broker) {
        backendChannels.computeIfAbsent(broker.id(), id -> {
            AtomicInteger open = new AtomicInteger();
            Gauge.builder("kafscale_proxy_backend_channels", open, AtomicInteger::get)
                    .description("Open channels to each broker").tag("broker", String.valueOf(id)).register(registry);
            return open;
        }).incrementAndGet();
    }

    @Override
    public void channelClosed(BrokerEndpoint broker) {
        AtomicInteger open = backendChannels.get(broker.id());
        if (open != null) {
            open.decrementAndGet();
        }
    }

    /**
     * One timer per API key and version, made once: the hot path only looks it up (a plain get
     * first, because computeIfAbsent's capturing lambda is an allocation per request).
     *
     * <p>Labels never come from raw client input: a key kafka-clients does not know is
     * {@code api="unknown"}, and a version outside the API's range is {@code version="unknown"},
     * so a client sending made-up keys and versions adds two series at most, not one per value.
     */
    private Timer requestTimer(short apiKey, short apiVersion) {
        boolean knownApi = ApiKeys.hasId(apiKey);
        boolean knownVersion = knownApi && ApiKeys.forId(apiKey).isVersionSupported(apiVersion);
        int key = !knownApi ? UNKNOWN : (apiKey << 16) | (knownVersion ? apiVersion & 0xffff : UNKNOWN_VERSION);
        Timer timer = requestTimers.get(key);
        return timer != null ? timer : requestTimers.computeIfAbsent(key, k -> Timer
                .builder("kafscale_proxy_requests")
                .description("Kafka requests handled, from read to reply, by API and version")
                .tag("api", knownApi ? ApiKeys.forId(apiKey).name : "unknown")
                .tag("version", knownVersion ? Short.toString(apiVersion) : "unknown")
                .register(registry));
    }
}
