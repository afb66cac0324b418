package org.kafscale.proxy.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs librdkafka's {@code kcat} (Debian package kcat) as a non-Java Kafka client, on the
 * librdkafka of scripts/ensure-librdkafka.sh when it is built ({@link Librdkafka}).
 *
 * <p>Every run has a deadline: a kcat that cannot reach its broker retries forever, and a test
 * must fail with the output so far rather than hang the build.
 */
public final class Kcat {

    private static final String HOW_TO_INSTALL = "run scripts/ensure-test-tools.sh or apt-get install kcat";
    private static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);
    private static final Pattern BANNER = Pattern.compile("librdkafka (\\d+\\.\\d+\\.\\d+)\\S* builtin\\.features=([^\\s)]+)");

    /** Which librdkafka a kcat run loads. */
    public enum Library {
        /** The build of scripts/ensure-librdkafka.sh when there is one, else the system's: what runs by default. */
        PREFERRED,
        /** The system's (Debian's librdkafka1), for tests of how the proxy treats an old client. */
        SYSTEM
    }

    /** The librdkafka kcat ran on, from {@code kcat -V}: its version and its builtin.features. */
    public record Banner(String version, Set<String> features) {
    }

    /** What a kcat run printed and how it ended. */
    public record Result(int exitCode, String stdout, String stderr) {

        public boolean succeeded() {
            return exitCode == 0;
        }

        /** stdout split into lines, without the trailing empty line. */
        public List<String> lines() {
            return stdout.isEmpty() ? List.of() : List.of(stdout.split("\n"));
        }
    }

    private Kcat() {
    }

    /** Whether kcat is installed, for tests that want to skip rather than fail without it. */
    public static boolean isAvailable() {
        return Executables.find("kcat").isPresent();
    }

    /** Lists brokers and topics ({@code -L}). */
    public static Result metadata(String bootstrap) {
        return run(DEFAULT_DEADLINE, null, List.of("-b", bootstrap, "-L"));
    }

    /**
     * Produces one record per line. A line {@code key:value} gets that key ({@code -K:}); a line
     * without a colon is produced with a null key. kcat waits for delivery before it exits.
     */
    public static Result produce(String bootstrap, String topic, List<String> lines) {
        String stdin = lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
        return run(DEFAULT_DEADLINE, stdin, List.of("-b", bootstrap, "-t", topic, "-P", "-K:"));
    }

    /**
     * Reads up to {@code count} record values from the start of every partition and exits at the
     * end of the log ({@code -C -o beginning -c count -e}); {@link Result#lines()} gives the values.
     */
    public static Result consume(String bootstrap, String topic, int count) {
        return run(DEFAULT_DEADLINE, null,
                List.of("-b", bootstrap, "-t", topic, "-C", "-o", "beginning", "-c", Integer.toString(count), "-e"));
    }

    /**
     * Runs kcat with {@code args}, writing {@code stdin} (may be null) to it.
     *
     * @throws IllegalStateException if kcat is missing or does not exit within {@code deadline};
     *     the message carries what it printed until then
     */
    public static Result run(Duration deadline, String stdin, List<String> args) {
        return run(Library.PREFERRED, deadline, stdin, args);
    }

    /** The same, on the given librdkafka. */
    public static Result run(Library library, Duration deadline, String stdin, List<String> args) {
        Path kcat = Executables.require("kcat", HOW_TO_INSTALL);
        List<String> command = new ArrayList<>();
        command.add(kcat.toString());
        command.addAll(args);
        Map<String, String> env = library == Library.PREFERRED ? Librdkafka.environment() : Map.of();
        ChildProcess.Output output = ChildProcess.run(command, env, stdin, deadline);
        return new Result(output.exitCode(), output.stdout(), output.stderr());
    }

    /**
     * What {@code kcat -V} says of the librdkafka it runs on.
     *
     * @throws IllegalStateException if its banner names no librdkafka version
     */
    public static Banner banner(Library library) {
        String printed = run(library, Duration.ofSeconds(10), null, List.of("-V")).stdout();
        Matcher m = BANNER.matcher(printed);
        if (!m.find()) {
            throw new IllegalStateException("kcat -V names no librdkafka version: " + printed);
        }
        return new Banner(m.group(1), Set.of(m.group(2).split(",")));
    }
}
