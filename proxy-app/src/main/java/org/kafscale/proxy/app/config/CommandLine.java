package org.kafscale.proxy.app.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The parsed arguments: {@code [run|help] [--config file.yaml] [--KEY=value | --KEY value ...]},
 * where KEY is one of the {@link ConfigKey} names.
 *
 * @param command what to do
 * @param configFile the YAML file named by {@code --config}, if any
 * @param flags the settings given as flags, by name, in the order given (the last of a repeated flag wins)
 */
public record CommandLine(Command command, Optional<Path> configFile, Map<String, String> flags) {
    public static final String CONFIG_FLAG = "--config";
    private static final List<String> HELP_FLAGS = List.of("--help", "-h");

    public CommandLine {
        flags = Map.copyOf(flags);
    }

    /** What the process does. */
    public enum Command {
        /** Serve Kafka clients (the default). */
        RUN,
        /** Print usage and every setting. */
        HELP
    }

    /**
     * Parses the arguments. {@code --help} anywhere, or {@code help} first, wins over everything else.
     *
     * @throws IllegalArgumentException for an unknown command
     * @throws ConfigException for an unknown flag or a flag without its value
     */
    public static CommandLine parse(String... args) {
        if (List.of(args).stream().anyMatch(HELP_FLAGS::contains) || args.length > 0 && args[0].equals("help")) {
            return new CommandLine(Command.HELP, Optional.empty(), Map.of());
        }
        Command command = null;
        Optional<Path> configFile = Optional.empty();
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                if (command != null) {
                    throw new ConfigException("unexpected argument " + arg + ": settings are given as --KEY=value");
                }
                command = command(arg);
                continue;
            }
            int equals = arg.indexOf('=');
            String flag = equals < 0 ? arg : arg.substring(0, equals);
            String value;
            if (equals >= 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                value = args[++i];
            } else {
                throw new ConfigException("flag " + flag + " needs a value: " + flag + "=value or " + flag + " value");
            }
            if (flag.equals(CONFIG_FLAG)) {
                configFile = Optional.of(Path.of(value));
            } else {
                flags.put(knownKey(flag.substring(2)).envName(), value);
            }
        }
        return new CommandLine(command == null ? Command.RUN : command, configFile, flags);
    }

    private static Command command(String name) {
        try {
            return Command.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown command: " + name);
        }
    }

    private static ConfigKey knownKey(String name) {
        return ConfigKey.byName(name).orElseThrow(() -> new ConfigException("unknown flag --" + name
                + ConfigKey.closest(name).map(k -> "; did you mean --" + k.envName() + "?")
                        .orElse("; --help lists the settings")));
    }
}
