package org.kafscale.proxy.demo;

import java.util.HashMap;
import java.util.Map;
import org.kafscale.proxy.app.ProxyRuntime;
import org.kafscale.proxy.app.config.CommandLine;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ConfigSources;
import org.kafscale.proxy.app.config.ProxyConfig;

/**
 * The demo: an embedded one-broker Kafka and the proxy in front of it on localhost:9092, with
 * nothing else to set up. Prints what to run next and serves until interrupted. Takes the proxy's
 * own {@code --config} and {@code --KEY=value} arguments.
 */
public final class Demo {
    static final int BROKER_PORT = 19092;

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> settings;
        try {
            settings = ConfigSources.resolve(CommandLine.parse(args), System.getenv());
            run(settings);
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("Configuration error: " + e.getMessage());
            System.exit(1);
        }
    }

    static void run(Map<String, String> env) throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(BROKER_PORT);
        Map<String, String> settings = new HashMap<>(env);
        settings.putIfAbsent(ProxyConfig.ADDR, "127.0.0.1:9092");
        settings.putIfAbsent(ProxyConfig.ADVERTISED_HOST, "localhost");
        settings.putIfAbsent(ProxyConfig.HEALTH_ADDR, "127.0.0.1:9094");
        settings.put(ProxyConfig.BACKENDS, broker.bootstrap());
        ProxyRuntime proxy = ProxyRuntime.start(ProxyConfig.from(settings));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            proxy.close();
            broker.close();
        }, "demo-shutdown"));
        String bootstrap = "localhost:" + proxy.kafkaAddress().getPort();
        System.out.println();
        System.out.println("KafScale proxy demo is up.");
        System.out.println("  Kafka broker (embedded): " + broker.bootstrap() + "   clients never need this address");
        System.out.println("  Proxy:                   " + bootstrap);
        proxy.healthAddress().ifPresent(h -> System.out.println("  Health:                  http://127.0.0.1:"
                + h.getPort() + "/readyz"));
        System.out.println();
        System.out.println("Try it (Debian: apt-get install kcat):");
        System.out.println("  kcat -b " + bootstrap + " -L");
        System.out.println("  printf 'k1:hello\\nk2:world\\n' | kcat -b " + bootstrap + " -P -t demo -K:");
        System.out.println("  kcat -b " + bootstrap + " -C -t demo -o beginning -e -f '%p %o %k=%s\\n'");
        System.out.println("  kcat -b " + bootstrap + " -G demo-group demo");
        System.out.println();
        System.out.println("Press Ctrl+C to stop.");
        Thread.currentThread().join();
    }
}
