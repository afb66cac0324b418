package org.kafscale.proxy.app.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.slf4j.LoggerFactory;

/**
 * Merges the sources of settings into the one map {@link ProxyConfig#from} reads. Lowest to
 * highest precedence: defaults (in {@link ConfigKey}), the {@code --config} YAML file, the
 * environment, the {@code --KEY=value} flags. A blank value in any source counts as unset and does
 * not hide a value from a lower source.
 */
public final class ConfigSources {
    private static final Logger LOGGER = LoggerFactory.getLogger(ConfigSources.class);
    private static final String ENV_PREFIX = "KAFSCALE_";
    private static final YAMLFactory YAML = new YAMLFactory();
    /**
     * What a security setting's name looks like: TLS, SASL or ACL among its words, or a credential
     * (key, password, secret, token, certificate). Settings named so are {@link #SECURITY}; an unread
     * name that looks so stops start-up.
     */
    private static final Pattern SECURITY_NAME = Pattern.compile(
            "(^|_)(TLS|SSL|SASL|ACL|MTLS|JAAS|SCRAM|OAUTH|OAUTHBEARER)(_|$)"
                    + "|API_?KEY|PASS_?WORD|PASSWD|SECRET|TOKEN|CREDENTIAL|USER_?NAME|(^|_)(CERT|CA|KEY)(_|$)");
    /** Settings whose absence leaves the proxy open (no auth, no TLS) or without its credentials. */
    private static final Set<ConfigKey> SECURITY = Arrays.stream(ConfigKey.values())
            .filter(key -> looksLikeSecurity(key.envName()))
            .collect(java.util.stream.Collectors.toCollection(() -> EnumSet.noneOf(ConfigKey.class)));
    /** Words every setting of a prefix shares; alone they say nothing about which setting was meant. */
    private static final Set<String> PREFIX_WORDS = Set.of("KAFSCALE", "PROXY", "LFS", "S3", "HTTP");

    private ConfigSources() {
    }

    /** The merged settings for this command line and environment. */
    public static Map<String, String> resolve(CommandLine commandLine, Map<String, String> env) {
        return merge(commandLine.configFile(), env, commandLine.flags());
    }

    /** File, then environment, then flags; each later source overrides the earlier ones. */
    public static Map<String, String> merge(Optional<Path> file, Map<String, String> env, Map<String, String> flags) {
        Map<String, String> merged = new LinkedHashMap<>();
        file.ifPresent(path -> putSet(merged, readFile(path)));
        putSet(merged, environment(env));
        putSet(merged, flags);
        return merged;
    }

    /**
     * The KafScale variables of the environment (others are ignored). Unknown names with a
     * setting's prefix ({@link ConfigKey#PREFIXES}) are logged as a warning, not refused: KafScale's operator
     * writes some the proxy does not read.
     */
    static Map<String, String> environment(Map<String, String> env) {
        Map<String, String> kafscale = new LinkedHashMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX)) {
                kafscale.put(name, value);
            }
        });
        for (String name : unreadProxyVariables(env)) {
            Optional<ConfigKey> security = securityNearMiss(name);
            if (security.isPresent()) {
                throw new ConfigException("environment variable " + name + " is not a setting; did you mean "
                        + security.get().envName() + "? A misspelt security setting would leave the proxy without it,"
                        + " so it does not start");
            }
            LOGGER.warn("Ignoring environment variable {}: the proxy does not read it{}", name,
                    ConfigKey.closest(name).map(k -> " (did you mean " + k.envName() + "?)").orElse(""));
        }
        return kafscale;
    }

    /**
     * The security setting an unread name was probably meant to be: one a spelling slip away from
     * it, or whose words all belong to it ({@code KAFSCALE_LFS_PROXY_API_KEY} for
     * {@code KAFSCALE_LFS_PROXY_HTTP_API_KEY}), or, for any other name that reads like a security
     * setting ({@link #looksLikeSecurity}), the nearest security setting by edit distance. Only these
     * stop start-up: without them the proxy would run open, while other unread names may be the
     * operator's own.
     */
    static Optional<ConfigKey> securityNearMiss(String name) {
        Optional<ConfigKey> closest = ConfigKey.closest(name);
        if (closest.isPresent() && SECURITY.contains(closest.get())) {
            return closest;
        }
        Set<String> words = words(name);
        words.removeAll(PREFIX_WORDS);
        if (words.isEmpty()) {
            return Optional.empty();
        }
        Optional<ConfigKey> containing = SECURITY.stream()
                .filter(key -> words(key.envName()).containsAll(words(name)))
                .min(Comparator.comparingInt(key -> key.envName().length()));
        if (containing.isPresent() || !looksLikeSecurity(name)) {
            return containing;
        }
        // Named like a security setting but like none in particular: still refused, pointing at the nearest.
        return Optional.of(ConfigKey.nearest(name, SECURITY));
    }

    /** Whether {@code name} reads like a TLS, SASL, ACL or credential setting. */
    static boolean looksLikeSecurity(String name) {
        return SECURITY_NAME.matcher(name.trim().toUpperCase(Locale.ROOT).replace('-', '_')).find();
    }

    private static Set<String> words(String name) {
        return new HashSet<>(Arrays.asList(name.trim().toUpperCase(Locale.ROOT).replace('-', '_').split("_+")));
    }

    /** The names in the environment with a setting's prefix that are no setting, sorted. */
    static List<String> unreadProxyVariables(Map<String, String> env) {
        return new ArrayList<>(new TreeSet<>(env.keySet().stream()
                .filter(ConfigKey::hasSettingPrefix)
                .filter(name -> ConfigKey.byName(name).isEmpty())
                .toList()));
    }

    /**
     * Reads a flat YAML map of {@code KEY: value} with the environment variable names as keys. A
     * list of values is joined with commas; an empty value counts as unset. An unknown key stops
     * start-up.
     */
    static Map<String, String> readFile(Path path) {
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw ConfigException.invalid(CommandLine.CONFIG_FLAG, path.toString(), "expected a readable YAML file");
        }
        Map<String, String> values = new LinkedHashMap<>();
        try (JsonParser parser = YAML.createParser(path.toFile())) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return values;
            }
            if (token != JsonToken.START_OBJECT) {
                throw notAFlatMap(path);
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                ConfigKey key = ConfigKey.byName(name).orElseThrow(() -> unknownKey(name, path));
                String value = value(parser, parser.nextToken(), name, path);
                if (values.put(key.envName(), value) != null) {
                    throw new ConfigException(name + " appears twice in " + path);
                }
            }
        } catch (JsonProcessingException e) {
            throw ConfigException.invalid(CommandLine.CONFIG_FLAG, path.toString(),
                    "expected a flat YAML map of KEY: value (" + yamlProblem(e) + ")");
        } catch (IOException e) {
            throw ConfigException.invalid(CommandLine.CONFIG_FLAG, path.toString(),
                    "expected a readable YAML file (" + e.getMessage() + ")");
        }
        return values;
    }

    /** The parser's complaint, short: snakeyaml's messages quote the offending lines. */
    private static String yamlProblem(JsonProcessingException e) {
        if (e.getCause() instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
            return marked.getProblem() + " at line " + (marked.getProblemMark().getLine() + 1)
                    + ", column " + (marked.getProblemMark().getColumn() + 1);
        }
        return e.getOriginalMessage().lines().findFirst().orElse("unreadable");
    }

    private static String value(JsonParser parser, JsonToken token, String name, Path path) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return "";
        }
        if (token == JsonToken.START_ARRAY) {
            List<String> items = new ArrayList<>();
            for (JsonToken item = parser.nextToken(); item != JsonToken.END_ARRAY; item = parser.nextToken()) {
                if (!item.isScalarValue()) {
                    throw notASingleValue(name, path);
                }
                items.add(parser.getText());
            }
            return String.join(",", items);
        }
        if (!token.isScalarValue()) {
            throw notASingleValue(name, path);
        }
        return parser.getText();
    }

    private static ConfigException unknownKey(String name, Path path) {
        return new ConfigException("unknown key " + name + " in " + path
                + ConfigKey.closest(name).map(k -> "; did you mean " + k.envName() + "?")
                        .orElse("; --help lists the settings"));
    }

    private static ConfigException notAFlatMap(Path path) {
        return ConfigException.invalid(CommandLine.CONFIG_FLAG, path.toString(), "expected a flat YAML map of KEY: value");
    }

    private static ConfigException notASingleValue(String name, Path path) {
        return new ConfigException(name + " in " + path + " is invalid: expected a value or a list of values");
    }

    private static void putSet(Map<String, String> target, Map<String, String> source) {
        source.forEach((name, value) -> {
            if (value != null && !value.isBlank()) {
                target.put(name, value);
            }
        });
    }
}
