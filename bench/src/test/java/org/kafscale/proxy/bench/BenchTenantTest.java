package org.kafscale.proxy.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.GatewayFile;
import org.kafscale.proxy.core.security.sasl.CredentialsFile;
import org.kafscale.proxy.core.security.sasl.SaslMechanism;
import org.kafscale.proxy.core.tenant.VirtualCluster;

/** The files the virtual-cluster comparison gives its proxies are ones the proxy reads as meant. */
class BenchTenantTest {
    private final BenchTenant tenant = BenchTenant.forThisRun();

    @Test
    void theGatewayFilePlacesTheClientsPrincipalInAVirtualClusterThatPrefixesItsTopics() {
        // When the proxy reads the bench's gateway file
        Optional<VirtualCluster> placed = GatewayFile.parse("gateway.yaml", tenant.gatewayYaml().getBytes(StandardCharsets.UTF_8))
                .virtualClusters()
                .of(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, tenant.user()));

        // Then the bench's user is in the virtual cluster, whose real name of the bench's topic is
        // the one the comparison creates
        assertTrue(placed.isPresent());
        assertEquals(tenant.virtualCluster(), placed.get().name());
        assertEquals(tenant.realTopic(Suite.THROUGHPUT_TOPIC), placed.get().names().topic(Suite.THROUGHPUT_TOPIC));
        assertEquals("bench-tenant.bench-throughput", tenant.realTopic(Suite.THROUGHPUT_TOPIC));
    }

    @Test
    void theCredentialsFileHoldsTheKeysOfThePasswordTheClientsLogInWith(@TempDir Path dir) throws Exception {
        // Given the bench's credentials file
        Path file = Files.writeString(dir.resolve("sasl-users"), tenant.credentialsLine() + "\n");

        // When the proxy reads it
        ScramCredential credential = CredentialsFile.read(file).scram(tenant.user(), SaslMechanism.SCRAM_SHA_512)
                .orElseThrow();

        // Then the stored key is the one the clients' password derives
        ScramFormatter formatter = new ScramFormatter(ScramMechanism.SCRAM_SHA_512);
        byte[] salted = formatter.saltedPassword(tenant.password(), credential.salt(), credential.iterations());
        assertArrayEquals(credential.storedKey(), formatter.storedKey(formatter.clientKey(salted)));
        assertTrue(((String) tenant.clientSettings().get("sasl.jaas.config")).contains(tenant.password()));
    }
}
