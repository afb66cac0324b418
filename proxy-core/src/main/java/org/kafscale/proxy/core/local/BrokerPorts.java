package org.kafscale.proxy.core.local;

import java.util.OptionalInt;

/**
 * Advertise mode {@code ports}: broker id N is served at its own port, {@code base + N}, for N
 * below {@code count}. Computed from configuration alone, so every replica behind one Service
 * advertises the same ports and a client may reconnect to any replica.
 *
 * @param base the port of broker id 0 (KAFSCALE_PROXY_BROKER_PORT_BASE)
 * @param count how many ids have a port (KAFSCALE_PROXY_BROKER_PORT_COUNT); 0 when the mode is not ports
 */
public record BrokerPorts(int base, int count) {
    /** No per-broker ports (single and brokers modes). */
    public static final BrokerPorts NONE = new BrokerPorts(0, 0);

    public BrokerPorts {
        if (count < 0 || (count > 0 && (base < 1 || (long) base + count - 1 > 65535))) {
            throw new IllegalArgumentException("broker ports " + base + " + " + count + " do not fit 1..65535");
        }
    }

    /** Broker {@code brokerId}'s own port, empty for an id outside the range. */
    public OptionalInt portOf(int brokerId) {
        return covers(brokerId) ? OptionalInt.of(base + brokerId) : OptionalInt.empty();
    }

    public boolean covers(int brokerId) {
        return brokerId >= 0 && brokerId < count;
    }

    /** Whether {@code port} is one of the range's ports. */
    public boolean contains(int port) {
        return count > 0 && port >= base && port < base + count;
    }

    /** The range as an operator writes it, for log lines. */
    @Override
    public String toString() {
        return count == 0 ? "none" : base + "-" + (base + count - 1);
    }
}
