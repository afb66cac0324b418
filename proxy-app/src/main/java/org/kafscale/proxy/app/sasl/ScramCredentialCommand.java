package org.kafscale.proxy.app.sasl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * {@code scram-credential --user U --mechanism SCRAM-SHA-512 [--iterations N]}: reads a password
 * from standard input (its first line) and prints the line of {@code KAFSCALE_PROXY_SASL_CREDENTIALS_FILE}
 * for it: a fresh random salt and the keys Kafka's {@link ScramFormatter} derives, never the password.
 * The password is read from stdin so that it shows in no process list or shell history.
 */
public final class ScramCredentialCommand {
    public static final String NAME = "scram-credential";
    static final int DEFAULT_ITERATIONS = 8192;

    private ScramCredentialCommand() {
    }

    /** Usage, for {@code --help}. */
    public static String usage() {
        return NAME + " --user USER --mechanism SCRAM-SHA-256|SCRAM-SHA-512 [--iterations N (default "
                + DEFAULT_ITERATIONS + ")]  (reads the password from stdin, prints the credentials file line)";
    }

    /**
     * Runs the command with the arguments after its name.
     *
     * @return the process exit code: 0, or 2 for bad arguments or input
     */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        String user = null;
        String mechanismName = null;
        int iterations = DEFAULT_ITERATIONS;
        try {
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                int equals = flag.indexOf('=');
                String value = equals >= 0 ? flag.substring(equals + 1) : i + 1 < args.length ? args[++i] : null;
                String name = equals >= 0 ? flag.substring(0, equals) : flag;
                if (value == null) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                switch (name) {
                    case "--user" -> user = value;
                    case "--mechanism" -> mechanismName = value;
                    case "--iterations" -> iterations = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("unknown flag " + name);
                }
            }
            if (user == null || user.isBlank() || user.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("--user is required (a name without spaces)");
            }
            String requested = mechanismName;
            ScramMechanism mechanism = Optional.ofNullable(mechanismName).map(ScramMechanism::forMechanismName)
                    .orElseThrow(() -> new IllegalArgumentException("--mechanism must be SCRAM-SHA-256 or "
                            + "SCRAM-SHA-512, not " + requested));
            if (iterations < mechanism.minIterations() || iterations > mechanism.maxIterations()) {
                throw new IllegalArgumentException("--iterations must be " + mechanism.minIterations() + " to "
                        + mechanism.maxIterations());
            }
            String password = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("no password on standard input");
            }
            ScramCredential credential = new ScramFormatter(mechanism).generateCredential(password, iterations);
            out.println(user + " " + mechanism.mechanismName() + " "
                    + ScramCredentialUtils.credentialToString(credential));
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            err.println(NAME + ": " + e.getMessage());
            err.println("usage: " + usage());
            return 2;
        } catch (NoSuchAlgorithmException e) {
            err.println(NAME + ": " + e.getMessage());
            return 1;
        }
    }
}
