package org.kafscale.proxy.core.security.sasl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;

/**
 * The users of the credentials file, parsed once: one line per user and SCRAM mechanism,
 * {@code <user> <mechanism> salt=...,stored_key=...,server_key=...,iterations=N} (the credential
 * in Kafka's own text form, which the {@code scram-credential} command prints). Blank lines and
 * lines starting with {@code #} are ignored.
 *
 * <p>Only salted keys are kept, never passwords: SCRAM needs nothing else, and PLAIN checks a
 * password by deriving the same keys from it ({@link PasswordCheck}).
 */
public final class CredentialsFile {
    private final Map<String, Map<SaslMechanism, ScramCredential>> users;

    private CredentialsFile(Map<String, Map<SaslMechanism, ScramCredential>> users) {
        this.users = users;
    }

    /**
     * Reads and parses the file.
     *
     * @throws IllegalArgumentException naming the line that is not a credential
     * @throws UncheckedIOException when the file cannot be read
     */
    public static CredentialsFile read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(lines, file.toString());
    }

    /** Parses lines of the file; {@code source} names it in errors. */
    static CredentialsFile parse(List<String> lines, String source) {
        Map<String, Map<SaslMechanism, ScramCredential>> users = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + " line " + (i + 1);
            String[] fields = line.split("\\s+");
            if (fields.length != 3) {
                throw new IllegalArgumentException(where + ": expected `<user> <mechanism> <credential>`");
            }
            SaslMechanism mechanism = SaslMechanism.byKafkaName(fields[1]).filter(m -> m.scram().isPresent())
                    .orElseThrow(() -> new IllegalArgumentException(where + ": unknown mechanism " + fields[1]
                            + " (SCRAM-SHA-256 or SCRAM-SHA-512)"));
            ScramCredential credential;
            try {
                credential = ScramCredentialUtils.credentialFromString(fields[2]);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(where + ": not a SCRAM credential (salt=...,stored_key=...,"
                        + "server_key=...,iterations=N): " + e.getMessage());
            }
            if (users.computeIfAbsent(fields[0], u -> new EnumMap<>(SaslMechanism.class))
                    .put(mechanism, credential) != null) {
                throw new IllegalArgumentException(where + ": a second " + fields[1] + " line for user " + fields[0]);
            }
        }
        return new CredentialsFile(Map.copyOf(users));
    }

    /** The user's credential for a SCRAM mechanism. */
    public Optional<ScramCredential> scram(String user, SaslMechanism mechanism) {
        return Optional.ofNullable(users.getOrDefault(user, Map.of()).get(mechanism));
    }

    /** Every SCRAM credential the user has, strongest first (what a PLAIN password is checked against). */
    public Map<SaslMechanism, ScramCredential> credentials(String user) {
        return users.getOrDefault(user, Map.of());
    }

    public int userCount() {
        return users.size();
    }
}
