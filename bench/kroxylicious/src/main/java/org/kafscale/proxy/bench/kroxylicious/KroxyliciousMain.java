package org.kafscale.proxy.bench.kroxylicious;

import io.kroxylicious.proxy.KafkaProxy;
import io.kroxylicious.proxy.config.ConfigParser;
import io.kroxylicious.proxy.config.Configuration;
import io.kroxylicious.proxy.internal.config.Features;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts Kroxylicious from a YAML file, for the benchmark's peer route. Kroxylicious publishes
 * its runtime on Maven Central but not the application with a {@code main}, so the benchmark
 * needs this much of its own: parse, start, say so, block until the JVM is told to end.
 *
 * <p>Prints {@value #READY} once every listener is bound; the benchmark waits for that line.
 */
public final class KroxyliciousMain {
    public static final String READY = "KROXYLICIOUS READY";

    private KroxyliciousMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KroxyliciousMain <config.yaml>");
            System.exit(2);
        }
        ConfigParser parser = new ConfigParser();
        Configuration config = parser.parseConfiguration(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8));
        try (KafkaProxy proxy = new KafkaProxy(parser, config, Features.defaultFeatures())) {
            proxy.startup();
            System.out.println(READY);
            System.out.flush();
            proxy.block();
        }
    }
}
