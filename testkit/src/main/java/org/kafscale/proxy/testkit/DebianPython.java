package org.kafscale.proxy.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs programs on Debian's {@code /usr/bin/python3}, where python3-confluent-kafka and
 * python3-kafka are installed (the python3 on PATH may be another interpreter that cannot see
 * Debian's packages), with confluent-kafka on the librdkafka of {@link Librdkafka} when it is built.
 */
public final class DebianPython {

    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final String HOW_TO_INSTALL = "run scripts/ensure-test-tools.sh as root";

    /** What a program printed and how it ended. */
    public record Result(int exitCode, String stdout, String stderr) {

        public boolean succeeded() {
            return exitCode == 0;
        }
    }

    private DebianPython() {
    }

    /**
     * Runs {@code script} (given on stdin) with {@code args}.
     *
     * @throws IllegalStateException if Python is missing or the program does not exit within
     *     {@code deadline}; the message carries what it printed until then
     */
    public static Result run(String script, Duration deadline, List<String> args) {
        List<String> command = new ArrayList<>(List.of(require().toString(), "-"));
        command.addAll(args);
        ChildProcess.Output output = ChildProcess.run(command, environment(Map.of()), script, deadline);
        return new Result(output.exitCode(), output.stdout(), output.stderr());
    }

    /** The version of the librdkafka confluent-kafka runs on ({@code confluent_kafka.libversion()}). */
    public static String confluentKafkaLibrdkafkaVersion() {
        Result result = run("import confluent_kafka; print(confluent_kafka.libversion()[0])", Duration.ofSeconds(30),
                List.of());
        if (!result.succeeded()) {
            throw new IllegalStateException("cannot import confluent_kafka: " + result.stderr());
        }
        return result.stdout().strip();
    }

    static Path require() {
        if (!Files.isExecutable(PYTHON)) {
            throw new IllegalStateException(PYTHON + " not found: " + HOW_TO_INSTALL);
        }
        return PYTHON;
    }

    /** {@code extra} plus what loads the built librdkafka. */
    static Map<String, String> environment(Map<String, String> extra) {
        Map<String, String> env = new java.util.HashMap<>(Librdkafka.environment());
        env.putAll(extra);
        return env;
    }
}
