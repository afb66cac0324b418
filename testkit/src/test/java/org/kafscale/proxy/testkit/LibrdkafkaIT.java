package org.kafscale.proxy.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** kcat and confluent-kafka load the librdkafka of scripts/ensure-librdkafka.sh, with what the tests need of it. */
class LibrdkafkaIT {

    @BeforeEach
    void built() {
        assumeTrue(Librdkafka.libraryDir().isPresent(), Librdkafka::whyAbsent);
    }

    @Test
    void kcatRunsOnTheBuiltLibrdkafkaWithOidcAndZstd() {
        Kcat.Banner banner = Kcat.banner(Kcat.Library.PREFERRED);

        assertEquals(Librdkafka.VERSION, banner.version());
        assertTrue(banner.features().containsAll(Set.of("sasl_scram", "sasl_oauthbearer", "oidc", "ssl",
                "zstd", "lz4", "snappy", "gzip")), banner.features().toString());
    }

    @Test
    void confluentKafkaRunsOnTheBuiltLibrdkafka() {
        assertEquals(Librdkafka.VERSION, DebianPython.confluentKafkaLibrdkafkaVersion());
    }
}
