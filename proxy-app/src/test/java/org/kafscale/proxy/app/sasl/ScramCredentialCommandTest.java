package org.kafscale.proxy.app.sasl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;

class ScramCredentialCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String stdin, String... args) {
        return ScramCredentialCommand.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void printsTheUsersLineWithSaltedKeysThatProveThePasswordAndNotThePassword() throws Exception {
        // When
        int exit = run("s3cret-pass\n", "--user", "alice", "--mechanism", "SCRAM-SHA-256", "--iterations", "4096");

        // Then
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        String line = out.toString(StandardCharsets.UTF_8).strip();
        assertFalse(line.contains("s3cret-pass"));
        String[] fields = line.split(" ");
        assertEquals("alice", fields[0]);
        assertEquals("SCRAM-SHA-256", fields[1]);
        ScramCredential credential = ScramCredentialUtils.credentialFromString(fields[2]);
        assertEquals(4096, credential.iterations());
        ScramFormatter formatter = new ScramFormatter(ScramMechanism.SCRAM_SHA_256);
        byte[] salted = formatter.saltedPassword("s3cret-pass", credential.salt(), credential.iterations());
        assertArrayEquals(credential.storedKey(), formatter.storedKey(formatter.clientKey(salted)));
    }

    @Test
    void iterationsBelowScramsMinimumAreRefused() {
        assertEquals(2, run("pw\n", "--user", "alice", "--mechanism", "SCRAM-SHA-512", "--iterations", "10"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--iterations must be 4096 to"), err.toString());
    }

    @Test
    void aMechanismOtherThanScramIsRefused() {
        assertEquals(2, run("pw\n", "--user", "alice", "--mechanism", "PLAIN"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512"));
    }

    @Test
    void anEmptyPasswordIsRefused() {
        assertEquals(2, run("", "--user", "alice", "--mechanism", "SCRAM-SHA-512"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no password on standard input"));
    }
}
