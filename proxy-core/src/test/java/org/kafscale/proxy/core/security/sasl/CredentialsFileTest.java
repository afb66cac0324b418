package org.kafscale.proxy.core.security.sasl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;

class CredentialsFileTest {

    static String line(String user, ScramMechanism mechanism, String password) throws Exception {
        ScramCredential credential = new ScramFormatter(mechanism).generateCredential(password, 4096);
        return user + " " + mechanism.mechanismName() + " " + ScramCredentialUtils.credentialToString(credential);
    }

    @Test
    void linesGiveEachUserTheirCredentialPerMechanismIgnoringCommentsAndBlanks() throws Exception {
        // Given
        String alice512 = line("alice", ScramMechanism.SCRAM_SHA_512, "a");
        List<String> lines = List.of("# users", "", alice512, "  " + line("bob", ScramMechanism.SCRAM_SHA_256, "b") + "  ");

        // When
        CredentialsFile file = CredentialsFile.parse(lines, "users");

        // Then
        assertEquals(2, file.userCount());
        ScramCredential expected = ScramCredentialUtils.credentialFromString(alice512.split(" ")[2]);
        assertArrayEquals(expected.storedKey(), file.scram("alice", SaslMechanism.SCRAM_SHA_512).orElseThrow().storedKey());
        assertTrue(file.scram("alice", SaslMechanism.SCRAM_SHA_256).isEmpty());
        assertTrue(file.scram("bob", SaslMechanism.SCRAM_SHA_256).isPresent());
        assertTrue(file.scram("carol", SaslMechanism.SCRAM_SHA_256).isEmpty());
    }

    @Test
    void aLineThatIsNoCredentialIsRefusedNamingItsNumber() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> CredentialsFile.parse(List.of("# ok", "alice SCRAM-SHA-512 password=plain"), "users"));
        assertTrue(error.getMessage().startsWith("users line 2: not a SCRAM credential"), error.getMessage());
    }

    @Test
    void aPlainMechanismLineIsRefusedSinceOnlySaltedKeysAreKept() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> CredentialsFile.parse(List.of("alice PLAIN secret"), "users"));
        assertTrue(error.getMessage().contains("line 1: unknown mechanism PLAIN"), error.getMessage());
    }

    @Test
    void aSecondLineForTheSameUserAndMechanismIsRefused() throws Exception {
        String first = line("alice", ScramMechanism.SCRAM_SHA_256, "a");
        String second = line("alice", ScramMechanism.SCRAM_SHA_256, "b");
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> CredentialsFile.parse(List.of(first, second), "users"));
        assertTrue(error.getMessage().contains("line 2: a second SCRAM-SHA-256 line for user alice"), error.getMessage());
    }

    @Test
    void aPlainPasswordIsCheckedAgainstTheUsersScramKeys() throws Exception {
        // Given
        CredentialsFile file = CredentialsFile.parse(List.of(line("alice", ScramMechanism.SCRAM_SHA_256, "right")),
                "users");

        // Then
        assertTrue(PasswordCheck.matches(file.credentials("alice"), "right".toCharArray()));
        assertFalse(PasswordCheck.matches(file.credentials("alice"), "wrong".toCharArray()));
        assertFalse(PasswordCheck.matches(file.credentials("nobody"), "right".toCharArray()));
    }
}
