package org.kafscale.proxy.discovery.etcd;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.KafscaleEtcdWriter;

/**
 * A real etcd for a test class, with {@link EtcdFixtures#publishOrders} published afresh before
 * each test. Register it as a static field with {@code @RegisterExtension}.
 */
final class OrdersInEtcd implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private EtcdProcess etcd;
    private KafscaleEtcdWriter kafscale;

    @Override
    public void beforeAll(ExtensionContext context) {
        etcd = EtcdProcess.startNew();
        kafscale = KafscaleEtcdWriter.connect(etcd.endpoint());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        EtcdFixtures.publishOrders(kafscale);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (kafscale != null) {
            kafscale.close();
        }
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
