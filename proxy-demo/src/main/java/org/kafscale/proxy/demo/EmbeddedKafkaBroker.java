package org.kafscale.proxy.demo;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A one-node KRaft Kafka (combined broker and controller) in this JVM, on fixed loopback ports,
 * with its data in a temporary folder removed on close. For the demo only.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
    private final Path dataDir;
    private final KafkaRaftServer server;
    private final int port;

    private EmbeddedKafkaBroker(Path dataDir, KafkaRaftServer server, int port) {
        this.dataDir = dataDir;
        this.server = server;
        this.port = port;
    }

    /**
     * Formats storage and starts the node; returns once the broker is unfenced.
     *
     * @param port the client port; the controller listens on {@code port + 1}
     */
    public static EmbeddedKafkaBroker start(int port) throws IOException {
        Path dataDir = Files.createTempDirectory("kafscale-demo-kafka");
        Properties p = new Properties();
        p.put("node.id", "1");
        p.put("process.roles", "broker,controller");
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + (port + 1));
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + (port + 1));
        p.put("log.dirs", dataDir.resolve("log").toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.partitions", "3");
        Path propertiesFile = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(propertiesFile)) {
            p.store(w, "KafScale proxy demo broker");
        }
        int rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(),
                "-c", propertiesFile.toString(), "--ignore-formatted"}, new PrintStream(OutputStream.nullOutputStream()));
        if (rc != 0) {
            throw new IllegalStateException("formatting the demo broker's storage failed (exit " + rc + ")");
        }
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(p, false), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafkaBroker(dataDir, server, port);
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
