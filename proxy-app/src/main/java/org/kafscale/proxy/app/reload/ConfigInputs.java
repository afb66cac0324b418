package org.kafscale.proxy.app.reload;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.app.config.CommandLine;
import org.kafscale.proxy.app.config.ConfigSources;

/**
 * Where the proxy's settings come from, kept so a live reconfiguration can read them again: the
 * {@code --config} file (which may change), and the environment and flags (which cannot, but
 * still take precedence over it).
 */
public record ConfigInputs(Optional<Path> configFile, Map<String, String> env, Map<String, String> flags) {

    public ConfigInputs {
        env = Map.copyOf(env);
        flags = Map.copyOf(flags);
    }

    public static ConfigInputs of(CommandLine commandLine, Map<String, String> env) {
        return new ConfigInputs(commandLine.configFile(), env, commandLine.flags());
    }

    /**
     * The merged settings as they are now.
     *
     * @throws org.kafscale.proxy.app.config.ConfigException when the {@code --config} file cannot be read or parsed
     */
    public Map<String, String> resolve() {
        return ConfigSources.merge(configFile, env, flags);
    }
}
