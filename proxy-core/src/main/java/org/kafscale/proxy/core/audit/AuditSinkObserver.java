package org.kafscale.proxy.core.audit;

/** Counts what each sink wrote and dropped (metrics). Called from the sinks' threads and the event loops. */
public interface AuditSinkObserver {
    AuditSinkObserver NONE = new AuditSinkObserver() {
        @Override
        public void written(String sink, int events) {
        }

        @Override
        public void dropped(String sink, String reason, int events) {
        }
    };

    /** Reason of a drop: the sink's queue was full. */
    String QUEUE_FULL = "queue_full";
    /** Reason of a drop: the sink failed to write it. */
    String SINK_ERROR = "sink_error";

    void written(String sink, int events);

    /** @param reason {@link #QUEUE_FULL} or {@link #SINK_ERROR} */
    void dropped(String sink, String reason, int events);
}
