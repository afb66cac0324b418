package org.kafscale.proxy.deploy.chart;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What `helm install` tells the user afterwards (NOTES.txt). */
class ChartNotesTest {

    @Test
    void defaultInstallWarnsThatTheProxyHasNoTopologyAndIsOnlyReachableInCluster() {
        String notes = ChartRenderer.chart().installOutput();

        assertTrue(notes.contains("bootstrap.servers=kproxy-kafscale-proxy.streaming.svc.cluster.local:9092"), notes);
        assertTrue(notes.contains("neither etcd.endpoints nor backends is set"), notes);
        assertTrue(notes.contains("clients outside the cluster cannot resolve"), notes);
    }

    @Test
    void configuredInstallPrintsTheExternalBootstrapAndTheLfsEndpoint() {
        String notes = ChartRenderer.chart().values("all-features-values.yaml").installOutput();

        assertTrue(notes.contains("bootstrap.servers=kafka.example.com:9092"), notes);
        assertTrue(notes.contains("https://kafka.example.com:8080/lfs/produce"), notes);
        assertFalse(notes.contains("WARNING"), notes);
        assertFalse(notes.contains("NOTE:"), notes);
    }
}
