package org.kafscale.proxy.core.local;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * The host names of advertise mode sni: one for the bootstrap, and a pattern that gives each
 * broker id a name of its own ({@code broker-$(nodeId).kafka.example.com}). Metadata advertises
 * these names, all on the listener's one port; the name a client sends in its TLS ClientHello
 * (SNI) says which of them it is connecting to, and so which broker its requests address.
 *
 * @param bootstrapHost the bootstrap's name, lower case
 * @param brokerPrefix the broker pattern before {@link #NODE_ID}, lower case
 * @param brokerSuffix the broker pattern after {@link #NODE_ID}, lower case
 */
public record SniHosts(String bootstrapHost, String brokerPrefix, String brokerSuffix) {
    /** Where a broker's id goes in the broker host pattern. */
    public static final String NODE_ID = "$(nodeId)";
    /** No SNI names: every advertise mode but sni. */
    public static final SniHosts NONE = new SniHosts("", "", "");

    // RFC 1123 labels: letters, digits and inner hyphens, 1 to 63 characters.
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final int MAX_NAME = 253;
    private static final int MAX_ID_DIGITS = 10;

    /** A name the client sent, resolved: the bootstrap, or one broker id. */
    public record Target(OptionalInt broker) {
        public static final Target BOOTSTRAP = new Target(OptionalInt.empty());

        public static Target broker(int id) {
            return new Target(OptionalInt.of(id));
        }
    }

    /** A setting that is not a host name, or a pattern without exactly one {@link #NODE_ID}. */
    public static final class InvalidName extends IllegalArgumentException {
        private final Part part;

        InvalidName(Part part, String message) {
            super(message);
            this.part = part;
        }

        /** Which of the two settings is wrong. */
        public Part part() {
            return part;
        }
    }

    /** The two settings a {@link SniHosts} is made of. */
    public enum Part { BOOTSTRAP_HOST, BROKER_HOST_PATTERN }

    /**
     * Checks and lower-cases the two settings.
     *
     * @throws InvalidName naming the setting that is wrong and why
     */
    public static SniHosts of(String bootstrapHost, String brokerHostPattern) {
        String bootstrap = bootstrapHost.trim().toLowerCase(Locale.ROOT);
        checkName(Part.BOOTSTRAP_HOST, bootstrap);
        String pattern = brokerHostPattern.trim().toLowerCase(Locale.ROOT);
        int at = pattern.indexOf(NODE_ID.toLowerCase(Locale.ROOT));
        if (at < 0 || pattern.indexOf(NODE_ID.toLowerCase(Locale.ROOT), at + 1) >= 0) {
            throw new InvalidName(Part.BROKER_HOST_PATTERN, "it must hold " + NODE_ID
                    + " exactly once, where each broker's id goes (broker-" + NODE_ID + ".kafka.example.com)");
        }
        SniHosts hosts = new SniHosts(bootstrap, pattern.substring(0, at), pattern.substring(at + NODE_ID.length()));
        // The longest id a broker can have must still make a valid name.
        checkName(Part.BROKER_HOST_PATTERN, hosts.brokerHost(Integer.MAX_VALUE));
        if (hosts.matchesBroker(bootstrap).isPresent()) {
            throw new InvalidName(Part.BOOTSTRAP_HOST,
                    "it matches the broker host pattern, so a client could not say which it means");
        }
        return hosts;
    }

    /** Broker {@code nodeId}'s name: the pattern with the id in it. */
    public String brokerHost(int nodeId) {
        return brokerPrefix + nodeId + brokerSuffix;
    }

    /** The pattern as configured, lower case. */
    public String brokerHostPattern() {
        return brokerPrefix + NODE_ID + brokerSuffix;
    }

    /**
     * What a client's SNI name stands for; empty when it sent none or one that is neither the
     * bootstrap nor a broker's. Case does not matter (DNS names do not have one).
     */
    public Optional<Target> resolve(String serverName) {
        if (serverName == null || this == NONE) {
            return Optional.empty();
        }
        String name = serverName.toLowerCase(Locale.ROOT);
        if (name.equals(bootstrapHost)) {
            return Optional.of(Target.BOOTSTRAP);
        }
        OptionalInt id = matchesBroker(name);
        return id.isPresent() ? Optional.of(Target.broker(id.getAsInt())) : Optional.empty();
    }

    private OptionalInt matchesBroker(String name) {
        if (name.length() <= brokerPrefix.length() + brokerSuffix.length()
                || !name.startsWith(brokerPrefix) || !name.endsWith(brokerSuffix)) {
            return OptionalInt.empty();
        }
        String digits = name.substring(brokerPrefix.length(), name.length() - brokerSuffix.length());
        // Only the name Metadata advertises: no sign, no leading zero, no more digits than an int.
        if (digits.length() > MAX_ID_DIGITS || (digits.length() > 1 && digits.charAt(0) == '0')
                || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalInt.empty();
        }
        long id = Long.parseLong(digits);
        return id > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) id);
    }

    private static void checkName(Part part, String name) {
        if (name.isEmpty() || name.length() > MAX_NAME) {
            throw new InvalidName(part, "it is not a host name: a name has 1 to " + MAX_NAME + " characters");
        }
        for (String label : name.split("\\.", -1)) {
            if (!LABEL.matcher(label).matches()) {
                throw new InvalidName(part, "it is not a host name: '" + label
                        + "' is not a DNS label (letters, digits and inner hyphens, 1 to 63 characters)");
            }
        }
    }
}
