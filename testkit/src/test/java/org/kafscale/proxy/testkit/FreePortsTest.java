package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void rangeHandsOutConsecutivePortsThatCanAllBeBoundAndNeverAgain() throws IOException {
        // When
        int first = FreePorts.block(4);
        int second = FreePorts.block(4);

        // Then: the ranges do not overlap, and every port of one can be bound at once
        assertTrue(first + 4 <= second || second + 4 <= first, first + " and " + second + " overlap");
        List<ServerSocket> bound = new ArrayList<>();
        try {
            for (int port = first; port < first + 4; port++) {
                ServerSocket socket = new ServerSocket();
                bound.add(socket);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        } finally {
            for (ServerSocket socket : bound) {
                socket.close();
            }
        }
    }
}
