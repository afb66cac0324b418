package org.kafscale.proxy.app;

import java.util.concurrent.CountDownLatch;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.demo.Demo;

/**
 * Entry point. {@code run} (the default) configures the proxy from KafScale's environment
 * variables; {@code demo} starts an embedded Kafka with the proxy in front of it.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "run" : args[0];
        switch (command) {
            case "run" -> run();
            case "demo" -> Demo.run(System.getenv());
            case "help", "--help", "-h" -> System.out.println(usage());
            default -> {
                System.err.println("Unknown command: " + command);
                System.err.println(usage());
                System.exit(2);
            }
        }
    }

    private static void run() throws InterruptedException {
        ProxyConfig config;
        try {
            config = ProxyConfig.from(System.getenv());
        } catch (ConfigException e) {
            System.err.println("Configuration error: " + e.getMessage());
            System.exit(1);
            return;
        }
        ProxyRuntime proxy = ProxyRuntime.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            proxy.close();
            stopped.countDown();
        }, "proxy-shutdown"));
        stopped.await();
    }

    private static String usage() {
        return """
                Usage: java -jar kafscale-proxy.jar [run|demo|help]
                  run   serve Kafka clients, configured by KAFSCALE_PROXY_* environment variables (default)
                  demo  start an embedded one-broker Kafka and the proxy in front of it on localhost:9092
                See README.md for the configuration table.""";
    }
}
