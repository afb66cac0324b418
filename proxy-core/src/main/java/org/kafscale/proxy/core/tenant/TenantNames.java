package org.kafscale.proxy.core.tenant;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How one virtual cluster's names map onto the real cluster's: a prefix for its topics, one for
 * its consumer groups and one for its transactional ids. A client names {@code orders}; the broker
 * sees {@code team-a.orders}; the answer says {@code orders} again. A real name without the prefix
 * belongs to another tenant (or to the cluster itself, like {@code __consumer_offsets}) and is
 * never shown.
 */
public final class TenantNames {
    private final String topicPrefix;
    private final String groupPrefix;
    private final String transactionalIdPrefix;
    /** Where a real name starts in a broker's error message: the prefixes after a non-name character. */
    private final Pattern scrubbed;

    public TenantNames(String topicPrefix, String groupPrefix, String transactionalIdPrefix) {
        this.topicPrefix = requirePrefix(topicPrefix, "topicPrefix");
        this.groupPrefix = requirePrefix(groupPrefix, "groupPrefix");
        this.transactionalIdPrefix = requirePrefix(transactionalIdPrefix, "transactionalIdPrefix");
        this.scrubbed = Pattern.compile("(?<![A-Za-z0-9._-])(?:" + Pattern.quote(this.topicPrefix) + "|"
                + Pattern.quote(this.groupPrefix) + "|" + Pattern.quote(this.transactionalIdPrefix) + ")");
    }

    /** The same prefix for topics, groups and transactional ids. */
    public static TenantNames prefixed(String prefix) {
        return new TenantNames(prefix, prefix, prefix);
    }

    public String topicPrefix() {
        return topicPrefix;
    }

    public String groupPrefix() {
        return groupPrefix;
    }

    public String transactionalIdPrefix() {
        return transactionalIdPrefix;
    }

    /** The real name of the client's topic {@code name}; null and empty (no name sent) stay as they are. */
    public String topic(String name) {
        return real(topicPrefix, name);
    }

    /** The client's name of the real topic {@code name}, which {@link #ownsTopic} must hold for. */
    public String clientTopic(String name) {
        return client(topicPrefix, name);
    }

    /** Whether the real topic {@code name} is this tenant's. */
    public boolean ownsTopic(String name) {
        return owns(topicPrefix, name);
    }

    public String group(String id) {
        return real(groupPrefix, id);
    }

    public String clientGroup(String id) {
        return client(groupPrefix, id);
    }

    public boolean ownsGroup(String id) {
        return owns(groupPrefix, id);
    }

    public String transactionalId(String id) {
        return real(transactionalIdPrefix, id);
    }

    public String clientTransactionalId(String id) {
        return client(transactionalIdPrefix, id);
    }

    public boolean ownsTransactionalId(String id) {
        return owns(transactionalIdPrefix, id);
    }

    /**
     * A broker's error message as the client may read it: every real name it quotes loses its
     * prefix (only where a name starts, so {@code x.a.b} keeps its {@code a.}), and no other
     * tenant's name appears in an answer to begin with.
     */
    public String scrub(String message) {
        return message == null || message.isEmpty() ? message : scrubbed.matcher(message).replaceAll(Matcher.quoteReplacement(""));
    }

    /** A regular expression over client names (RE2/Java syntax) as one over real names: the prefix, then it. */
    public String topicPattern(String pattern) {
        return pattern == null || pattern.isEmpty() ? pattern : literal(topicPrefix) + "(?:" + pattern + ")";
    }

    /** The same for transactional ids. */
    public String transactionalIdPattern(String pattern) {
        return pattern == null || pattern.isEmpty() ? pattern : literal(transactionalIdPrefix) + "(?:" + pattern + ")";
    }

    /** {@code text} matched as itself by both java.util.regex and RE2 (which the brokers use): each character escaped. */
    private static String literal(String text) {
        StringBuilder escaped = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                escaped.append(c);
            } else {
                escaped.append('\\').append(c);
            }
        }
        return escaped.toString();
    }

    private static String real(String prefix, String name) {
        return name == null || name.isEmpty() ? name : prefix + name;
    }

    private static String client(String prefix, String name) {
        return owns(prefix, name) ? name.substring(prefix.length()) : name;
    }

    private static boolean owns(String prefix, String name) {
        return name != null && name.length() > prefix.length() && name.startsWith(prefix);
    }

    private static String requirePrefix(String prefix, String setting) {
        Objects.requireNonNull(prefix, setting);
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException(setting + " is empty: a virtual cluster's names need a prefix of their own");
        }
        if (!prefix.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException(setting + " '" + prefix + "' may hold only letters, digits, '.', '_' and '-', "
                    + "as Kafka's topic names do");
        }
        return prefix;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TenantNames n && n.topicPrefix.equals(topicPrefix) && n.groupPrefix.equals(groupPrefix)
                && n.transactionalIdPrefix.equals(transactionalIdPrefix);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topicPrefix, groupPrefix, transactionalIdPrefix);
    }

    @Override
    public String toString() {
        return "topics '" + topicPrefix + "', groups '" + groupPrefix + "', transactional ids '" + transactionalIdPrefix + "'";
    }
}
