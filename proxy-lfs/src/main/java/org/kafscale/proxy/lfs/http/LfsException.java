package org.kafscale.proxy.lfs.http;

/**
 * A request failed with one of the API's documented errors (spec §4.6): the HTTP status and the
 * machine-readable code travel with the exception through asynchronous stages, and the router
 * turns it into the JSON error body {@code {code,message,request_id}}.
 */
public final class LfsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    public LfsException(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    public LfsException(int status, String code, String message, Throwable cause) {
        super(message, cause, false, false);
        this.status = status;
        this.code = code;
    }

    public static LfsException badRequest(String code, String message) {
        return new LfsException(400, code, message);
    }

    public static LfsException backendUnavailable(String message) {
        return new LfsException(503, "backend_unavailable", message);
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The error code of the JSON body, e.g. {@code invalid_topic}. */
    public String code() {
        return code;
    }

    /**
     * The LfsException inside a failure from an asynchronous stage ({@code CompletionException}
     * wrappers removed), or null when the failure is something else.
     */
    public static LfsException unwrap(Throwable failure) {
        Throwable t = failure;
        while (t != null) {
            if (t instanceof LfsException e) {
                return e;
            }
            t = t.getCause();
        }
        return null;
    }
}
