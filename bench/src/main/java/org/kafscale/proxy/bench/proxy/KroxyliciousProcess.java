package org.kafscale.proxy.bench.proxy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.bench.cluster.ChildJvm;
import org.kafscale.proxy.testkit.FreePorts;

/**
 * The peer proxy: Kroxylicious 0.12 in passthrough (no filters), with a port per broker ("port
 * identifies node": bootstrap on P, node N at P + 1 + N), in a JVM of its own whose classpath
 * scripts/bench.sh builds from bench/kroxylicious (Kroxylicious brings Netty 4.1 and
 * kafka-clients 4.0, which must not meet ours).
 */
public final class KroxyliciousProcess implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final String MAIN = "org.kafscale.proxy.bench.kroxylicious.KroxyliciousMain";
    /** What {@code KroxyliciousMain} prints once it serves (that class is not on our classpath). */
    private static final String READY = "KROXYLICIOUS READY";

    private final ChildJvm jvm;
    private final String bootstrap;

    private KroxyliciousProcess(ChildJvm jvm, String bootstrap) {
        this.jvm = jvm;
        this.bootstrap = bootstrap;
    }

    /**
     * Starts Kroxylicious in front of {@code backends}, serving broker ids {@code 0..brokers-1},
     * and returns once it listens.
     *
     * @param classpath the launcher's classpath (bench/kroxylicious/target)
     */
    public static KroxyliciousProcess start(String classpath, String backends, int brokers, Path logDir)
            throws IOException {
        int bootstrapPort = PortBlock.free(brokers + 1);
        Path config = logDir.resolve("kroxylicious.yaml");
        Files.createDirectories(logDir);
        Files.writeString(config, config(backends, bootstrapPort, brokers, FreePorts.next()), StandardCharsets.UTF_8);
        // The same heap and collector as our proxy's JVM, so neither gets an advantage from them.
        ChildJvm jvm = ChildJvm.start("kroxylicious", List.of("-Xmx1g", "-XX:+UseG1GC"), classpath, MAIN,
                List.of(config.toString()), Map.of(), logDir.resolve("kroxylicious.log"), line -> line.equals(READY),
                false);
        jvm.awaitLine(START_DEADLINE);
        return new KroxyliciousProcess(jvm, "127.0.0.1:" + bootstrapPort);
    }

    /**
     * Kroxylicious 0.12's schema: one virtual cluster, one gateway. The management listener is
     * named explicitly so that it takes a free port instead of its fixed default (9190), which
     * another run on the machine may hold.
     */
    static String config(String backends, int bootstrapPort, int brokers, int managementPort) {
        return """
                management:
                  bindAddress: 127.0.0.1
                  port: %d
                virtualClusters:
                  - name: bench
                    targetCluster:
                      bootstrapServers: %s
                    gateways:
                      - name: ports
                        portIdentifiesNode:
                          bootstrapAddress: 127.0.0.1:%d
                          nodeStartPort: %d
                          nodeIdRanges:
                            - name: brokers
                              start: 0
                              end: %d
                """.formatted(managementPort, backends, bootstrapPort, bootstrapPort + 1, brokers - 1);
    }

    public String bootstrap() {
        return bootstrap;
    }

    public long pid() {
        return jvm.pid();
    }

    @Override
    public void close() {
        jvm.close();
    }
}
