package org.kafscale.proxy.discovery.etcd;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;

/**
 * A real etcd for a test class, with {@link EtcdFixtures#publishOrders} published afresh before
 * each test. Register it as a static field with {@code @RegisterExtension}.
 *
 * <p>Each test gets a writer of its own: a client that lived through an earlier test's etcd
 * outage may still be in gRPC's reconnect backoff (it grows to tens of seconds), and its first
 * write would wait that long.
 */
final class OrdersInEtcd implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private EtcdProcess etcd;
    private KafscaleEtcdWriter kafscale;

    @Override
    public void beforeAll(ExtensionContext context) {
        etcd = EtcdProcess.startNew();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        kafscale = KafscaleEtcdWriter.connect(etcd.endpoint());
        EtcdFixtures.publishOrders(kafscale);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (kafscale != null) {
            kafscale.close();
            kafscale = null;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (etcd != null) {
            etcd.close();
        }
    }

    EtcdProcess etcd() {
        return etcd;
    }

    KafscaleEtcdWriter kafscale() {
        return kafscale;
    }
}
