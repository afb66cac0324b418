package org.kafscale.proxy.app.authz;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.core.security.authz.AclAuthorizer;
import org.kafscale.proxy.core.security.authz.AclRules;
import org.kafscale.proxy.core.security.authz.AclSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the rules in force in step with the ACL file: read at start (a file that does not parse
 * stops start-up), then read again every {@link AclSettings#reloadInterval()} on the housekeeping
 * thread, never an event loop. Content that changed and parses replaces every rule at once; content
 * that does not parse, or a file that cannot be read, keeps the rules in force and is logged once
 * until the file changes again. Reading the content, not watching timestamps, follows a Kubernetes
 * secret or config map whose mounted files are swapped through symbolic links.
 */
public final class AclFileWatcher {
    private static final Logger LOGGER = LoggerFactory.getLogger(AclFileWatcher.class);

    private final AclSettings settings;
    private final String setting;
    private final UnaryOperator<AclRules> toInForce;
    private final AclAuthorizer authorizer;
    private byte[] lastSeen;
    private String lastProblem;

    private AclFileWatcher(AclSettings settings, String setting, UnaryOperator<AclRules> toInForce,
                           AclAuthorizer authorizer, byte[] loaded) {
        this.settings = settings;
        this.setting = setting;
        this.toInForce = toInForce;
        this.authorizer = authorizer;
        this.lastSeen = loaded;
    }

    /**
     * Reads the proxy's ACL file ({@code KAFSCALE_PROXY_ACL_FILE}), before anything else starts.
     *
     * @throws ConfigException when it cannot be read or does not parse
     */
    public static AclFileWatcher load(AclSettings settings) {
        return load(settings, AclFile.SETTING, UnaryOperator.identity());
    }

    /**
     * Reads an ACL file that {@code setting} names, before anything else starts; each set of rules
     * it holds, at start and at every reload, is put in force as {@code toInForce} makes it (a
     * virtual cluster's rules in real names), which may refuse it with an
     * {@link IllegalArgumentException} that says why.
     *
     * @throws ConfigException when it cannot be read, does not parse or is refused
     */
    public static AclFileWatcher load(AclSettings settings, String setting, UnaryOperator<AclRules> toInForce) {
        byte[] text;
        try {
            text = Files.readAllBytes(settings.file());
        } catch (IOException e) {
            throw new ConfigException(setting + " (" + settings.file() + ") cannot be read: " + e);
        }
        AclRules rules = inForce(setting, settings, toInForce, text);
        LOGGER.info("Authorization on: {} from {} ({}), re-read every {} ms", rules, settings.file(), setting,
                settings.reloadInterval().toMillis());
        return new AclFileWatcher(settings, setting, toInForce, new AclAuthorizer(rules), text);
    }

    private static AclRules inForce(String setting, AclSettings settings, UnaryOperator<AclRules> toInForce,
                                    byte[] text) {
        AclRules parsed = AclFile.parse(setting, settings.file().toString(), text);
        try {
            return toInForce.apply(parsed);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(setting + " (" + settings.file() + ") is invalid: " + e.getMessage());
        }
    }

    /** The rules in force, which this watcher keeps current. */
    public AclAuthorizer authorizer() {
        return authorizer;
    }

    /** Re-reads the file on {@code housekeeping} from now on, until the returned task is cancelled. */
    public ScheduledFuture<?> follow(ScheduledExecutorService housekeeping) {
        long every = settings.reloadInterval().toMillis();
        return housekeeping.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
    }

    /** One look at the file. */
    void check() {
        byte[] text;
        try {
            text = Files.readAllBytes(settings.file());
        } catch (IOException e) {
            problem("cannot be read (" + e + ")");
            return;
        }
        if (Arrays.equals(text, lastSeen)) {
            return;
        }
        lastSeen = text;
        try {
            AclRules rules = inForce(setting, settings, toInForce, text);
            authorizer.replace(rules);
            lastProblem = null;
            LOGGER.info("ACL file {} reloaded: {} in force", settings.file(), rules);
        } catch (ConfigException e) {
            lastProblem = null;
            problem(e.getMessage());
        } catch (RuntimeException e) {
            lastProblem = null;
            problem(e.toString());
        }
    }

    private void problem(String problem) {
        if (problem.equals(lastProblem)) {
            return;
        }
        lastProblem = problem;
        LOGGER.warn("ACL file {} not applied, the {} in force stay: {}", settings.file(), authorizer.rules(), problem);
    }
}
