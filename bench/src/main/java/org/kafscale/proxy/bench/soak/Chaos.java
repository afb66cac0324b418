package org.kafscale.proxy.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The chaos of a soak: one event at a time, chosen by a seeded random, each an action with its
 * undoing (a broker stopped is started again), logged and marked on the report's timeline. The
 * same seed and the same settings give the same sequence of kinds and targets.
 */
final class Chaos {
    /** The kinds of event, each drawn as often as the others. */
    enum Kind {
        BROKER_RESTART, LEADER_MOVE, ETCD_RESTART, PROXY_RESTART, MISBEHAVING_CLIENT, RELAY_FAULT
    }

    /** What happened, when (seconds since the soak started), and when it was over again. */
    record Event(Kind kind, String target, double startedSeconds, double endedSeconds, String outcome) {
    }

    /** Carries out one kind of event on a target the random picks. */
    interface Actions {
        /** Does the event and its undoing; returns what was done to what (for the log), throws when it could not. */
        String perform(Kind kind, Random random) throws Exception;
    }

    private final Random random;
    private final Actions actions;
    private final List<Event> events = new ArrayList<>();

    Chaos(long seed, Actions actions) {
        this.random = new Random(seed);
        this.actions = actions;
    }

    /** Seconds until the next event, drawn from [min, max]. */
    long nextGapSeconds(long min, long max) {
        return min + (long) (random.nextDouble() * (max - min + 1));
    }

    /**
     * Draws and carries out the next event; {@code starting} hears of its kind first (the timeline
     * marks the event where it begins).
     */
    Event next(double startedSeconds, java.util.function.DoubleSupplier now, java.util.function.Consumer<Kind> starting) {
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        starting.accept(kind);
        String outcome;
        String target;
        try {
            target = actions.perform(kind, random);
            outcome = "done";
        } catch (Exception e) {
            target = "?";
            outcome = "failed: " + e;
        }
        Event event = new Event(kind, target, startedSeconds, now.getAsDouble(), outcome);
        events.add(event);
        return event;
    }

    List<Event> events() {
        return List.copyOf(events);
    }
}
