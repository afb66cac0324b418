package org.kafscale.proxy.core.tenant;

import org.apache.kafka.common.protocol.Errors;

/**
 * A request a virtual cluster may not send as it is (a broker's configuration, a resource of the
 * real cluster): thrown by a request rewrite, answered with Kafka's error answer for the whole
 * request carrying {@link #error()}, so the client reads a Kafka error and the connection stays.
 */
public final class TenantRefusal extends RuntimeException {
    private final transient Errors error;

    public TenantRefusal(Errors error, String why) {
        super(why, null, false, false);
        this.error = error;
    }

    public Errors error() {
        return error;
    }
}
