package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the client program of a {@link ClientFamily}: it produces {@code count} keyed records
 * (key {@code k<i>} to partition {@code i % partitions}), then consumes the whole topic from the
 * beginning and prints one line per record it read, which {@link Run#records()} parses.
 *
 * <p>The programs are classpath resources ({@code clients/}, from {@code src/main/clients}),
 * copied once per JVM to a temporary folder. The tools come from scripts/ensure-test-tools.sh:
 * Debian's Python ({@link DebianPython}, confluent-kafka on the librdkafka of {@link Librdkafka}),
 * kafkajs in the script's folder, Go with Sarama's sources for an offline GOPATH build. Nothing
 * here reaches a registry.
 */
public final class ClientPrograms {

    /** Must match KAFKAJS_VERSION and CLIENTS_DIR in scripts/ensure-test-tools.sh. */
    private static final String KAFKAJS_VERSION = "2.2.4";
    private static final String HOW_TO_INSTALL = "run scripts/ensure-test-tools.sh as root";
    /** Time a program gets beyond its own deadline to start (Python imports, Node) and exit. */
    private static final Duration STARTUP_MARGIN = Duration.ofSeconds(20);
    private static final Pattern RECORD_LINE = Pattern.compile("(\\d+) (\\d+) (\\S+)");

    /** One record a client read: where it was and its key. */
    public record ConsumedRecord(int partition, long offset, String key) {
    }

    /** What a client program printed and how it ended (0: read all, 2: its deadline passed first). */
    public record Run(ClientFamily family, int exitCode, String stdout, String stderr) {

        public boolean readEverything() {
            return exitCode == 0;
        }

        /** The records it printed, in the order it read them. */
        public List<ConsumedRecord> records() {
            List<ConsumedRecord> records = new ArrayList<>();
            for (String line : stdout.split("\n")) {
                Matcher m = RECORD_LINE.matcher(line.trim());
                if (m.matches()) {
                    records.add(new ConsumedRecord(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), m.group(3)));
                }
            }
            return records;
        }

        @Override
        public String toString() {
            return family + " exit " + exitCode + ", " + records().size() + " records\nstderr: " + stderr;
        }
    }

    private ClientPrograms() {
    }

    /**
     * Produces then consumes through {@code bootstrap}; the program gives up consuming after
     * {@code deadline} and exits 2 with what it read so far.
     *
     * @throws IllegalStateException if a tool is missing or the program hangs past its deadline
     */
    public static Run produceThenConsume(ClientFamily family, String bootstrap, String topic, int count,
            int partitions, Duration deadline) {
        return produceThenConsume(family, bootstrap, topic, count, partitions, deadline, Map.of());
    }

    /**
     * The same, with extra librdkafka settings (TLS, for instance) for the producer and the consumer.
     * Only confluent-kafka-python takes them.
     */
    public static Run produceThenConsume(ClientFamily family, String bootstrap, String topic, int count,
            int partitions, Duration deadline, Map<String, String> clientConfig) {
        if (!clientConfig.isEmpty() && family != ClientFamily.CONFLUENT_KAFKA_PYTHON) {
            throw new IllegalArgumentException("extra client settings are supported for confluent-kafka-python only");
        }
        String seconds = Long.toString(Math.max(1, deadline.toSeconds()));
        String group = "client-families-" + topic;
        List<String> args = List.of(bootstrap, topic, Integer.toString(count), Integer.toString(partitions));
        List<String> command = new ArrayList<>();
        Map<String, String> env = Map.of();
        switch (family) {
            case CONFLUENT_KAFKA_PYTHON, KAFKA_PYTHON -> {
                command.add(DebianPython.require().toString());
                command.add(Programs.INSTANCE.file(family == ClientFamily.KAFKA_PYTHON
                        ? "kafka_python_client.py" : "confluent_kafka_client.py").toString());
                command.addAll(args);
                command.add(group);
                command.add(seconds);
                env = DebianPython.environment(clientConfig.isEmpty() ? Map.of()
                        : Map.of("KAFSCALE_TEST_CLIENT_CONFIG", json(clientConfig)));
            }
            case KAFKAJS -> {
                command.add(Executables.require("node", HOW_TO_INSTALL + " (Node.js)").toString());
                command.add(Programs.INSTANCE.file("kafkajs_client.js").toString());
                command.addAll(args);
                command.add(group);
                command.add(seconds);
                env = Map.of("NODE_PATH", kafkajsModules().toString(), "KAFKAJS_NO_PARTITIONER_WARNING", "1");
            }
            case SARAMA -> {
                command.add(Programs.INSTANCE.saramaBinary().toString());
                command.addAll(args);
                command.add(seconds);
            }
            default -> throw new IllegalArgumentException(family.name());
        }
        ChildProcess.Output output = ChildProcess.run(command, env, null, deadline.plus(STARTUP_MARGIN));
        return new Run(family, output.exitCode(), output.stdout(), output.stderr());
    }

    private static String json(Map<String, String> values) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(values);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("client settings not writable as JSON", e);
        }
    }

    /** The folder scripts/ensure-test-tools.sh installs kafkajs (and keeps Go's build cache) under. */
    static Path clientsDir() {
        String configured = System.getenv("KAFSCALE_TEST_CLIENTS_DIR");
        return configured != null && !configured.isEmpty() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "kafscale-proxy", "test-clients");
    }

    private static Path kafkajsModules() {
        Path modules = clientsDir().resolve("kafkajs-" + KAFKAJS_VERSION).resolve("node_modules");
        if (!Files.isRegularFile(modules.resolve("kafkajs").resolve("package.json"))) {
            throw new IllegalStateException("kafkajs " + KAFKAJS_VERSION + " not found in " + modules + ": " + HOW_TO_INSTALL);
        }
        return modules;
    }

    /** The programs copied out of the classpath once per JVM, and Sarama's client built once. */
    private static final class Programs {
        static final Programs INSTANCE = new Programs();

        private final Path dir;
        private Path saramaBinary;

        private Programs() {
            try {
                dir = Files.createTempDirectory("kafscale-test-clients");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> TempDirs.deleteRecursively(dir)));
            for (String name : List.of("confluent_kafka_client.py", "kafka_python_client.py", "kafkajs_client.js",
                    "sarama/main.go")) {
                copy(name);
            }
        }

        Path file(String name) {
            return dir.resolve(name);
        }

        /**
         * Builds the Sarama program offline against Debian's Go sources (GOPATH mode), keeping Go's
         * build cache in the clients folder so later JVMs only link.
         */
        synchronized Path saramaBinary() {
            if (saramaBinary != null) {
                return saramaBinary;
            }
            Path go = Executables.require("go", HOW_TO_INSTALL + " (golang-go)");
            if (!Files.isDirectory(Path.of("/usr/share/gocode/src/github.com/Shopify/sarama"))) {
                throw new IllegalStateException("Sarama sources not found: " + HOW_TO_INSTALL
                        + " (golang-github-shopify-sarama-dev)");
            }
            Path binary = dir.resolve("sarama-client");
            ChildProcess.Output built = ChildProcess.run(
                    List.of(go.toString(), "build", "-o", binary.toString(), file("sarama/main.go").toString()),
                    Map.of("GO111MODULE", "off", "GOPATH", "/usr/share/gocode", "GOFLAGS", "",
                            "GOCACHE", clientsDir().resolve("go-build-cache").toString()),
                    null, Duration.ofMinutes(3));
            if (built.exitCode() != 0) {
                throw new IllegalStateException("go build of the Sarama client failed: " + built.stderr());
            }
            saramaBinary = binary;
            return binary;
        }

        private void copy(String name) {
            Path target = dir.resolve(name);
            try (InputStream in = ClientPrograms.class.getResourceAsStream("/clients/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("client program clients/" + name + " missing from the classpath");
                }
                Files.createDirectories(target.getParent());
                Files.copy(in, target);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot copy client program " + name, e);
            }
        }
    }
}
