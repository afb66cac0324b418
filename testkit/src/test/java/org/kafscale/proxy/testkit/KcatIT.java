package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KcatIT {

    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void metadataListsTheBrokerAsItAdvertisesItself() {
        Kcat.Result result = Kcat.metadata(cluster.bootstrapServers());

        assertTrue(result.succeeded(), result::stderr);
        int broker = cluster.brokerIds().get(0);
        assertTrue(result.stdout().contains("broker " + broker + " at " + cluster.brokerAddress(broker)), result.stdout());
    }

    @Test
    void linesProducedWithKcatAreConsumedWithKcat() {
        // Given
        cluster.createTopic("kcat", 1);

        // When
        Kcat.Result produced = Kcat.produce(cluster.bootstrapServers(), "kcat", List.of("k1:one", "two"));

        // Then
        assertTrue(produced.succeeded(), produced::stderr);
        Kcat.Result consumed = Kcat.consume(cluster.bootstrapServers(), "kcat", 2);
        assertTrue(consumed.succeeded(), consumed::stderr);
        assertEquals(List.of("one", "two"), consumed.lines());
    }

    @Test
    void runThatExceedsItsDeadlineFailsWithItsOutput() {
        // Given an empty topic, which kcat -C without -e waits on forever
        cluster.createTopic("kcat-empty", 1);

        // When
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Kcat.run(Duration.ofMillis(1500), null, List.of("-b", cluster.bootstrapServers(), "-t", "kcat-empty", "-C")));

        // Then
        assertTrue(e.getMessage().contains("did not finish within"), e.getMessage());
    }
}
