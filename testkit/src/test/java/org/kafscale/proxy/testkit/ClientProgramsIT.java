package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each client program, straight against a broker: it produces where asked and reads it all back once. */
class ClientProgramsIT {

    private static final int PARTITIONS = 3;
    private static final int RECORDS = 30;

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

    @ParameterizedTest
    @EnumSource(ClientFamily.class)
    void producesThenReadsEveryRecordOfEveryPartitionOnce(ClientFamily family) {
        // Given
        String topic = "programs-" + family.label();
        cluster.createTopic(topic, PARTITIONS);

        // When
        ClientPrograms.Run run = ClientPrograms.produceThenConsume(family, cluster.bootstrapServers(), topic, RECORDS,
                PARTITIONS, Duration.ofSeconds(30));

        // Then: keys k0..k29 once each, k<i> in partition i % 3, offsets 0..9 in every partition
        assertTrue(run.readEverything(), () -> run + "\nstdout: " + run.stdout());
        List<ClientPrograms.ConsumedRecord> records = run.records();
        assertEquals(RECORDS, records.size(), run::toString);
        Set<String> keys = new HashSet<>();
        for (ClientPrograms.ConsumedRecord record : records) {
            int i = Integer.parseInt(record.key().substring(1));
            assertEquals(i % PARTITIONS, record.partition(), record::toString);
            assertEquals(i / PARTITIONS, record.offset(), record::toString);
            keys.add(record.key());
        }
        assertEquals(RECORDS, keys.size());
    }
}
