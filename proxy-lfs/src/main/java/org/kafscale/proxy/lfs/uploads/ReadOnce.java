package org.kafscale.proxy.lfs.uploads;

import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * The answer to a second subscriber of a body that can be read only once: the bytes went to the
 * first one and cannot be produced again (nor hashed twice).
 */
final class ReadOnce {

    private ReadOnce() {
    }

    static void refuse(Subscriber<?> late) {
        late.onSubscribe(new Subscription() {
            @Override
            public void request(long n) {
            }

            @Override
            public void cancel() {
            }
        });
        late.onError(new IllegalStateException("a part body can be read only once"));
    }
}
