package org.kafscale.proxy.core.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Admission by address, as a listener reading PROXY protocol headers does it: the total at
 * accept, the per-address cap once the header names the client.
 */
class ClientConnectionsTest {
    private final List<String> refused = new ArrayList<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final ClientConnections clients = new ClientConnections(10, 1, new ConnectionListener() {
        @Override
        public void refused(String limit) {
            refused.add(limit);
        }
    });

    @AfterEach
    void close() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    @Test
    void perAddressCapCountsTheAddressAHeaderNamedNotTheSocket() throws Exception {
        // Given a cap of one connection per address, and two connections from one socket address
        EmbeddedChannel first = accepted();
        EmbeddedChannel second = accepted();
        EmbeddedChannel third = accepted();

        // When their headers name 203.0.113.7, 203.0.113.8, then 203.0.113.7 again
        boolean firstAdmitted = clients.admitFrom(first, client("203.0.113.7"));
        boolean secondAdmitted = clients.admitFrom(second, client("203.0.113.8"));
        boolean thirdAdmitted = clients.admitFrom(third, client("203.0.113.7"));

        // Then only the second from 203.0.113.7 is refused, as per_ip
        assertTrue(firstAdmitted);
        assertTrue(secondAdmitted);
        assertFalse(thirdAdmitted);
        assertFalse(third.isOpen());
        assertEquals(List.of("per_ip"), refused);
    }

    @Test
    void anAddressIsFreedWhenItsConnectionCloses() throws Exception {
        // Given the one connection 203.0.113.7 may have
        EmbeddedChannel first = accepted();
        clients.admitFrom(first, client("203.0.113.7"));

        // When it closes
        first.close();

        // Then the next one from that address is admitted
        assertTrue(clients.admitFrom(accepted(), client("203.0.113.7")));
    }

    @Test
    void aConnectionWhoseHeaderArrivesAfterTheDrainBeganIsClosed() throws Exception {
        // Given a connection accepted, its header not yet read
        EmbeddedChannel waiting = accepted();

        // When the listener drains (the connection is closed by the drain's end), and its header arrives
        clients.drain(Duration.ZERO);
        boolean admitted = clients.admitFrom(waiting, client("203.0.113.7"));

        // Then it is not admitted, and not counted as a refusal
        assertFalse(admitted);
        assertFalse(waiting.isOpen());
        assertEquals(List.of(), refused);
    }

    private EmbeddedChannel accepted() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channels.add(channel);
        assertTrue(clients.accept(channel));
        return channel;
    }

    private static InetSocketAddress client(String address) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(address), 51000);
    }
}
