package org.kafscale.proxy.core.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReloadingCredentialsTest {
    @TempDir
    Path dir;

    @Test
    void aChangedFileIsReadAgainAtTheNextLookup() throws Exception {
        // Given
        Path file = dir.resolve("users");
        Files.write(file, List.of(CredentialsFileTest.line("alice", ScramMechanism.SCRAM_SHA_512, "a")));
        ReloadingCredentials credentials = new ReloadingCredentials(file);

        // When the secret is rotated
        Files.write(file, List.of(CredentialsFileTest.line("alice", ScramMechanism.SCRAM_SHA_512, "a"),
                CredentialsFileTest.line("bob", ScramMechanism.SCRAM_SHA_512, "b")));
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));

        // Then
        assertTrue(credentials.current().scram("bob", SaslMechanism.SCRAM_SHA_512).isPresent());
    }

    @Test
    void aFileThatTurnsBadKeepsTheUsersReadBefore() throws Exception {
        // Given
        Path file = dir.resolve("users");
        Files.write(file, List.of(CredentialsFileTest.line("alice", ScramMechanism.SCRAM_SHA_512, "a")));
        ReloadingCredentials credentials = new ReloadingCredentials(file);

        // When a half-written file appears
        Files.write(file, List.of("alice SCRAM-SHA-512 salt="));
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));

        // Then
        assertEquals(1, credentials.current().userCount());
        assertTrue(credentials.current().scram("alice", SaslMechanism.SCRAM_SHA_512).isPresent());
    }
}
