package org.kafscale.proxy.lfs.http;

import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * The answer to a second subscriber of a body that can be read only once: the bytes went to the
 * first one and cannot be produced again (nor hashed twice).
 */
public final class ReadOnce {

    private ReadOnce() {
    }

    public static void refuse(Subscriber<?> late) {
        late.onSubscribe(new Subscription() {
            @Override
            public void request(long n) {
            }

            @Override
            public void cancel() {
            }
        });
        late.onError(new IllegalStateException("a request body can be read only once"));
    }
}
