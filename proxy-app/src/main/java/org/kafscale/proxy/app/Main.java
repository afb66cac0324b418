package org.kafscale.proxy.app;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.kafscale.proxy.app.config.CommandLine;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ConfigHelp;
import org.kafscale.proxy.app.config.ConfigSources;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.app.logging.LogFormatSwitch;
import org.kafscale.proxy.app.reload.ConfigInputs;
import org.kafscale.proxy.app.sasl.ScramCredentialCommand;

/**
 * Entry point: {@code [run|help] [--config file.yaml] [--KEY=value ...]}, or
 * {@code scram-credential --user U --mechanism M} ({@link ScramCredentialCommand}). {@code run} (the
 * default) configures the proxy from KafScale's setting names, merged from the file, the
 * environment and the flags. The demo, with its embedded Kafka, is a separate jar (proxy-demo) so
 * that none of a broker's code ships in the production image.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(ScramCredentialCommand.NAME)) {
            System.exit(ScramCredentialCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length), System.in,
                    System.out, System.err));
            return;
        }
        CommandLine commandLine;
        Map<String, String> settings;
        try {
            commandLine = CommandLine.parse(args);
            if (commandLine.command() == CommandLine.Command.HELP) {
                System.out.println(ConfigHelp.text());
                return;
            }
            settings = ConfigSources.resolve(commandLine, System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(ConfigHelp.text());
            System.exit(2);
            return;
        } catch (ConfigException e) {
            exitWithConfigurationError(e);
            return;
        }
        try {
            switch (commandLine.command()) {
                case RUN -> run(ConfigInputs.of(commandLine, System.getenv()), settings, ProxyConfig.from(settings));
                case HELP -> System.out.println(ConfigHelp.text());
            }
        } catch (ConfigException e) {
            exitWithConfigurationError(e);
        }
    }

    private static void run(ConfigInputs inputs, Map<String, String> settings, ProxyConfig config)
            throws InterruptedException {
        LogFormatSwitch.apply(config.logging());
        ProxyRuntime proxy = ProxyRuntime.start(inputs, settings, config);
        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM and SIGINT run shutdown hooks: drain, so no client loses an answer it was owed.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            proxy.drainAndClose(config.drainTimeout());
            stopped.countDown();
        }, "proxy-shutdown"));
        exitCleanlyOnSigterm();
        stopped.await();
    }

    /**
     * SIGTERM is how an orchestrator stops the proxy (docker/podman stop, Kubernetes): a request to
     * drain, not a failure. The JVM's own handler would exit 143 after the shutdown hooks; this
     * one exits through {@link System#exit} with 0, which runs the same hooks (the drain) first, so
     * the container is recorded as stopped cleanly. SIGINT keeps the JVM's handler (130).
     */
    private static void exitCleanlyOnSigterm() {
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> System.exit(0));
    }

    private static void exitWithConfigurationError(ConfigException e) {
        System.err.println("Configuration error: " + e.getMessage());
        System.exit(1);
    }
}
