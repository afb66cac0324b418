package org.kafscale.proxy.app.health;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's health state (what {@code /health} answers and {@code kafscale_proxy_health_state}
 * carries), from {@link Readiness} and the {@link DegradationCheck}s: draining first, then not
 * ready ({@code starting} until the first time it was ready), then {@code degraded} while any check
 * fails, else {@code ready}. It also keeps since when the state and each reason hold, and logs
 * each change of state once. Cheap: every input reads state kept by others.
 */
public final class HealthStates {
    private static final Logger LOGGER = LoggerFactory.getLogger(HealthStates.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<Readiness.Status> readiness;
    private final BooleanSupplier draining;
    private final List<DegradationCheck> checks;
    private final Clock clock;
    private boolean everReady;
    private Health last;
    /** When each reason without a time of its own was first seen, while it lasts. */
    private final Map<String, Instant> firstSeen = new HashMap<>();

    public HealthStates(Supplier<Readiness.Status> readiness, BooleanSupplier draining, List<DegradationCheck> checks,
                        Clock clock) {
        this.readiness = readiness;
        this.draining = draining;
        this.checks = List.copyOf(checks);
        this.clock = clock;
        this.last = new Health(HealthState.STARTING, clock.instant(), List.of());
    }

    /** The health of the proxy: {@code readiness}'s answer, and the degradations on top. */
    public static HealthStates of(Readiness readiness, List<DegradationCheck> checks) {
        return new HealthStates(readiness::status, readiness::draining, checks, Clock.systemUTC());
    }

    /** Evaluates the state now (and logs it if it changed). */
    public synchronized Health current() {
        Instant now = clock.instant();
        Readiness.Status status = readiness.get();
        everReady |= status.ready();
        HealthState state;
        List<HealthReason> reasons = new ArrayList<>();
        if (draining.getAsBoolean()) {
            state = HealthState.DRAINING;
            reasons.add(reason("draining", status.reason(), now));
        } else if (!status.ready()) {
            state = everReady ? HealthState.NOT_READY : HealthState.STARTING;
            reasons.add(reason(status.code(), status.reason(), now));
        } else {
            for (DegradationCheck check : checks) {
                reasons.addAll(check.failing());
            }
            state = reasons.isEmpty() ? HealthState.READY : HealthState.DEGRADED;
        }
        firstSeen.keySet().retainAll(reasons.stream().map(HealthReason::reason).toList());
        Instant since = state == last.state() ? last.since() : now;
        Health health = new Health(state, since, List.copyOf(reasons));
        if (state != last.state()) {
            log(health);
        }
        last = health;
        return health;
    }

    /** The state last evaluated (for the gauge: a scrape does not re-evaluate for each label). */
    public synchronized HealthState lastState() {
        return last.state();
    }

    private HealthReason reason(String code, String detail, Instant now) {
        return new HealthReason(code, detail, firstSeen.computeIfAbsent(code, c -> now));
    }

    private void log(Health health) {
        String reasons = health.reasons().stream().map(r -> r.reason() + " (" + r.detail() + ")").toList().toString();
        if (health.state() == HealthState.READY || health.state() == HealthState.DRAINING) {
            LOGGER.info("Health: {} {}", health.state().label(), reasons);
        } else if (health.state() != HealthState.STARTING) {
            LOGGER.warn("Health: {} {}", health.state().label(), reasons);
        }
    }

    /**
     * The health at one moment.
     *
     * @param since when the proxy entered {@code state}
     */
    public record Health(HealthState state, Instant since, List<HealthReason> reasons) {
        /** The {@code /health} body: the state, since when, and each reason with since when. */
        public String json() {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("state", state.label());
            body.put("since", since.toString());
            body.put("reasons", reasons.stream().map(r -> {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("reason", r.reason());
                one.put("detail", r.detail());
                one.put("since", r.since().toString());
                return one;
            }).toList());
            try {
                return JSON.writeValueAsString(body) + "\n";
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("health as JSON", e);
            }
        }
    }
}
