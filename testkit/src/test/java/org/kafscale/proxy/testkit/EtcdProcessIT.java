package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import org.junit.jupiter.api.Test;

class EtcdProcessIT {

    private static final ByteSequence KEY = bytes("/routing/topics/orders");
    private static final ByteSequence VALUE = bytes("{\"cluster\":\"a\"}");

    @Test
    void dataSurvivesAStopAndStartOnTheSameEndpoint() throws Exception {
        try (EtcdProcess etcd = EtcdProcess.startNew()) {
            // Given a value written through jetcd
            try (Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
                client.getKVClient().put(KEY, VALUE).get(10, TimeUnit.SECONDS);
            }

            // When etcd is stopped and started again
            String endpoint = etcd.endpoint();
            etcd.stop();
            assertFalse(etcd.isRunning());
            etcd.start();

            // Then it serves at the same endpoint and still has the value
            assertTrue(etcd.isRunning());
            assertEquals(endpoint, etcd.endpoint());
            try (Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
                KV kv = client.getKVClient();
                GetResponse response = kv.get(KEY).get(10, TimeUnit.SECONDS);
                assertEquals(1, response.getKvs().size());
                assertEquals(VALUE, response.getKvs().get(0).getValue());
            }
        }
    }

    @Test
    void clientThatOutlivesARestartReconnects() {
        try (EtcdProcess etcd = EtcdProcess.startNew();
                Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            // Given
            KV kv = client.getKVClient();
            Eventually.await(Duration.ofSeconds(10), "first put", () -> kv.put(KEY, VALUE).get(2, TimeUnit.SECONDS));

            // When
            etcd.stop();
            etcd.start();

            // Then
            Eventually.await(Duration.ofSeconds(20), "the same client to read after the restart",
                    () -> assertEquals(VALUE, kv.get(KEY).get(2, TimeUnit.SECONDS).getKvs().get(0).getValue()));
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
