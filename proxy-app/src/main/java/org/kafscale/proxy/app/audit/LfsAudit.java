package org.kafscale.proxy.app.audit;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.kafscale.proxy.core.audit.AuditEvent;
import org.kafscale.proxy.core.audit.AuditTrail;
import org.kafscale.proxy.lfs.tracker.LfsTracker;
import org.kafscale.proxy.lfs.tracker.TrackerEvent;

/**
 * LFS uploads and downloads in the audit trail, from the ops events the LFS routes emit for each
 * HTTP request: who (the mTLS principal when the LFS listener verified a certificate; the shared
 * API key names no one), from where (the client address, on the events that carry it), what object
 * (bucket and key) and how it ended. The request id ties the events of one request together.
 */
final class LfsAudit implements LfsTracker {
    private final AuditTrail trail;
    private final Clock clock;

    LfsAudit(AuditTrail trail, Clock clock) {
        this.trail = trail;
        this.clock = clock;
    }

    @Override
    public void emit(TrackerEvent event) {
        Map<String, Object> fields = event.fields();
        String type = event.type();
        String action;
        String outcome;
        switch (type == null ? "" : type) {
            case "upload_started" -> { action = "upload"; outcome = "started"; }
            case "upload_completed" -> { action = "upload"; outcome = "succeeded"; }
            case "upload_failed" -> { action = "upload"; outcome = "failed"; }
            case "download_requested" -> { action = "download"; outcome = "started"; }
            case "download_completed" -> { action = "download"; outcome = "succeeded"; }
            case "download_integrity_failed" -> { action = "download"; outcome = "failed"; }
            default -> {
                return; // orphan_detected: no request, no one to name
            }
        }
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("requestId", fields.get("request_id"));
        copy(fields, "topic", detail, "topic");
        copy(fields, "partition", detail, "partition");
        copy(fields, "size", detail, "size");
        copy(fields, "sha256", detail, "sha256");
        copy(fields, "mode", detail, "mode");
        copy(fields, "error_code", detail, "errorCode");
        copy(fields, "stage", detail, "stage");
        AuditEvent.Subject subject = new AuditEvent.Subject(null, (String) fields.get("client_ip"),
                (String) fields.get("principal"), null);
        trail.record(AuditEvent.lfs(clock.instant(), subject, action, (String) fields.get("s3_bucket"),
                (String) fields.get("s3_key"), outcome, detail));
    }

    private static void copy(Map<String, Object> from, String key, Map<String, Object> to, String as) {
        Object value = from.get(key);
        if (value != null) {
            to.put(as, value);
        }
    }
}
