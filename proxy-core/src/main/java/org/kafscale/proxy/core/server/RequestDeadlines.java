package org.kafscale.proxy.core.server;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.kafscale.proxy.core.concurrent.EarliestDeadline;

/**
 * The deadlines of a connection's requests that have no answer yet. They cost no timer per
 * request: the requests sit in a list (swap-removed, so an answer removes its request in O(1))
 * and one {@link EarliestDeadline} check runs at the earliest deadline. Confined to the
 * connection's event loop, whose clock the deadlines are read on.
 *
 * @param <T> what waits: a request, which carries its own deadline and place in the list
 */
final class RequestDeadlines<T extends RequestDeadlines.Awaiting> {
    private final ArrayList<T> awaiting = new ArrayList<>();
    private final EarliestDeadline check;
    private final Consumer<T> pastDeadline;

    /** A request's deadline, and its place in the list (-1 when not there). */
    abstract static class Awaiting {
        long deadlineNanos;
        int awaitingIndex = -1;
    }

    /** @param pastDeadline given each request whose deadline passed while it was still awaited */
    RequestDeadlines(EventExecutor loop, Consumer<T> pastDeadline) {
        this.check = new EarliestDeadline(loop, this::answerPastDeadlines);
        this.pastDeadline = pastDeadline;
    }

    /** {@code request} waits for its answer for at most {@code timeoutMillis} from now. */
    void await(T request, long timeoutMillis) {
        request.deadlineNanos = check.after(timeoutMillis);
        request.awaitingIndex = awaiting.size();
        awaiting.add(request);
        check.checkBy(request.deadlineNanos);
    }

    /**
     * {@code request}, awaited, now waits at most {@code timeoutMillis} from now, if that is later
     * than its deadline. The scheduled check stays: run before the new deadline, it finds the
     * request not yet due and checks again by the earliest deadline left.
     */
    void postpone(T request, long timeoutMillis) {
        long later = check.after(timeoutMillis);
        if (request.awaitingIndex >= 0 && later - request.deadlineNanos > 0) {
            request.deadlineNanos = later;
        }
    }

    /**
     * The request has its answer: its deadline no longer counts. The scheduled check stays when
     * nothing is left: cancelling it here would bring back a schedule and a cancel per request for
     * a client with one request in flight; run on an empty list, it just ends.
     */
    void answered(T request) {
        int index = request.awaitingIndex;
        if (index < 0) {
            return;
        }
        request.awaitingIndex = -1;
        T last = awaiting.remove(awaiting.size() - 1);
        if (last != request) {
            awaiting.set(index, last);
            last.awaitingIndex = index;
        }
    }

    /** Requests still waiting for their answer. */
    int size() {
        return awaiting.size();
    }

    /** The check: hands on each request past its deadline, then waits for the next deadline. */
    private void answerPastDeadlines() {
        long now = check.now();
        List<T> due = new ArrayList<>();
        T next = null;
        for (T request : awaiting) {
            if (EarliestDeadline.isPast(request.deadlineNanos, now)) {
                due.add(request);
            } else if (next == null || request.deadlineNanos - next.deadlineNanos < 0) {
                next = request;
            }
        }
        if (next != null) {
            check.checkBy(next.deadlineNanos);
        }
        for (T request : due) {
            answered(request);
            pastDeadline.accept(request);
        }
    }
}
