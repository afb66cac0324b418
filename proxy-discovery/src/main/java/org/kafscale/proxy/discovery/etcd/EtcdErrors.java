package org.kafscale.proxy.discovery.etcd;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What went wrong in an etcd call, without the wrappers futures put around it. */
final class EtcdErrors {
    private EtcdErrors() {
    }

    /** The cause under any CompletionException or ExecutionException; null for null. */
    static Throwable cause(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
