package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Values that cannot work stop `helm install` with a message, instead of rendering a broken pod. */
class ChartValuesValidationTest {

    @Test
    void misspelledTopLevelKeyIsRefused() {
        assertRefused(ChartRenderer.chart().set("replicaCont", 3), "replicaCont");
    }

    @Test
    void misspelledNestedKeyIsRefused() {
        assertRefused(ChartRenderer.chart().set("lfs.s3.bukcet", "blobs"), "bukcet");
    }

    @Test
    void unknownServiceTypeIsRefused() {
        assertRefused(ChartRenderer.chart().set("service.type", "LoadBalancr"), "/service/type");
    }

    @Test
    void settingNameNotKnownToTheProxyIsRefused() {
        assertRefused(ChartRenderer.chart().set("config.KAFSCALE_PROXY_ADVERTISED_HOTS", "x"),
                "KAFSCALE_PROXY_ADVERTISED_HOTS");
    }

    @Test
    void secretCannotBePutIntoTheConfigMap() {
        assertRefused(ChartRenderer.chart().set("config.KAFSCALE_LFS_PROXY_S3_SECRET_KEY", "s3cr3t"),
                "KAFSCALE_LFS_PROXY_S3_SECRET_KEY");
    }

    @Test
    void chartOwnedListenAddressCannotBeOverridden() {
        assertRefused(ChartRenderer.chart().set("config.KAFSCALE_PROXY_ADDR", ":9999"), "KAFSCALE_PROXY_ADDR");
    }

    @Test
    void invalidAdvertiseModeIsRefused() {
        assertRefused(ChartRenderer.chart().set("advertiseMode", "both"), "/advertiseMode");
    }

    @Test
    void latestImageTagIsRefused() {
        assertRefused(ChartRenderer.chart().set("image.tag", "latest"), "/image/tag");
    }

    @Test
    void portOutOfRangeIsRefused() {
        assertRefused(ChartRenderer.chart().set("ports.kafka", 70000), "/ports/kafka");
    }

    @Test
    void lfsWithoutBucketIsRefused() {
        assertRefused(ChartRenderer.chart().set("lfs.enabled", true).set("lfs.s3.region", "eu-west-1"),
                "lfs.enabled needs lfs.s3.bucket");
    }

    @Test
    void gracePeriodShorterThanTheDrainIsRefused() {
        assertRefused(ChartRenderer.chart().set("drainTimeoutMs", 60000).set("terminationGracePeriodSeconds", 30),
                "terminationGracePeriodSeconds (30) must be longer");
    }

    @Test
    void inlineSecretNextToExistingSecretIsRefused() {
        assertRefused(ChartRenderer.chart().set("existingSecret", "proxy-credentials").set("etcd.password", "pw"),
                "KAFSCALE_PROXY_ETCD_PASSWORD");
    }

    @Test
    void disruptionBudgetWithoutABoundIsRefused() {
        assertRefused(ChartRenderer.chart().valuesYaml("""
                podDisruptionBudget:
                  enabled: true
                  minAvailable: null
                """), "needs minAvailable or maxUnavailable");
    }

    private static void assertRefused(ChartRenderer chart, String messagePart) {
        RuntimeException refused = assertThrows(RuntimeException.class, chart::renderText);
        assertTrue(refused.getMessage().contains(messagePart),
                () -> "Expected '" + messagePart + "' in: " + refused.getMessage());
    }
}
