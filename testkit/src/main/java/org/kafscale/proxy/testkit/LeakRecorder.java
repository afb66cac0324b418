package org.kafscale.proxy.testkit;

import java.util.ArrayList;
import java.util.List;

import io.netty.util.ResourceLeakDetector;

/**
 * Collects the leak reports of Netty {@link ResourceLeakDetector}s it is attached to.
 *
 * <p>Netty only logs a leak; a log line does not fail a build. Recording the report lets the test
 * run turn it into a failure. Detectors call {@link #onLeak} from whichever thread happens to
 * allocate next, hence the synchronisation.
 */
public final class LeakRecorder implements ResourceLeakDetector.LeakListener {

    private final List<String> reports = new ArrayList<>();

    /** Routes the leaks {@code detector} finds to this recorder (replacing any earlier listener). */
    public void attachTo(ResourceLeakDetector<?> detector) {
        detector.setLeakListener(this);
    }

    @Override
    public synchronized void onLeak(String resourceType, String records) {
        reports.add("LEAK of " + resourceType + " (release() was not called before it was garbage-collected)"
                + (records.isEmpty() ? "; no access records" : ":\n" + records));
    }

    /** The reports so far, oldest first, without removing them. */
    public synchronized List<String> reports() {
        return List.copyOf(reports);
    }

    /** Returns and forgets all reports. */
    public synchronized List<String> drain() {
        List<String> drained = List.copyOf(reports);
        reports.clear();
        return drained;
    }
}
