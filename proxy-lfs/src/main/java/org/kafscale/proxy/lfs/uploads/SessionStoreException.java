package org.kafscale.proxy.lfs.uploads;

/** The session store (etcd or the bucket) could not be read or written. */
public final class SessionStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SessionStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
