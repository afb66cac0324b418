package org.kafscale.proxy.core.local;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * The host names of advertise mode sni: one for the bootstrap, and a pattern that gives each
 * broker id a name of its own ({@code broker-$(nodeId).kafka.example.com}). Metadata advertises
 * these names, all on the listener's one port; the name a client sends in its TLS ClientHello
 * (SNI) says which of them it is connecting to, and so which broker its requests address.
 *
 * <p>A virtual cluster with an {@code sniHostSuffix} has the same names under its suffix
 * ({@link #under}): the first label of the bootstrap's name and of the broker pattern, each in
 * front of the suffix ({@code bootstrap.team-a.kafka.example.com},
 * {@code broker-$(nodeId).team-a.kafka.example.com}). A name under a suffix is that virtual
 * cluster's; no shared name is under one, and no suffix is under another, so a name is never
 * read as two.
 *
 * @param bootstrapHost the bootstrap's name, lower case
 * @param brokerPrefix the broker pattern before {@link #NODE_ID}, lower case
 * @param brokerSuffix the broker pattern after {@link #NODE_ID}, lower case
 * @param virtualClusters the names of each virtual cluster placed by a suffix, by that suffix (lower case)
 */
public record SniHosts(String bootstrapHost, String brokerPrefix, String brokerSuffix,
                       Map<String, VirtualClusterHosts> virtualClusters) {
    /** Where a broker's id goes in the broker host pattern. */
    public static final String NODE_ID = "$(nodeId)";
    /** No SNI names: every advertise mode but sni. */
    public static final SniHosts NONE = new SniHosts("", "", "");

    // RFC 1123 labels: letters, digits and inner hyphens, 1 to 63 characters.
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final int MAX_NAME = 253;
    private static final int MAX_ID_DIGITS = 10;

    public SniHosts {
        // In the order they were added, so a refusal names them as the gateway file lists them.
        virtualClusters = Collections.unmodifiableMap(new LinkedHashMap<>(virtualClusters));
    }

    /** Names without virtual clusters of their own. */
    public SniHosts(String bootstrapHost, String brokerPrefix, String brokerSuffix) {
        this(bootstrapHost, brokerPrefix, brokerSuffix, Map.of());
    }

    /**
     * A name the client sent, resolved: the bootstrap, or one broker id, of the shared names or of
     * one virtual cluster's.
     *
     * @param virtualCluster the virtual cluster whose names it is; empty for the shared names
     */
    public record Target(OptionalInt broker, Optional<String> virtualCluster) {
        public static final Target BOOTSTRAP = new Target(OptionalInt.empty(), Optional.empty());

        public static Target broker(int id) {
            return new Target(OptionalInt.of(id), Optional.empty());
        }

        /** The same name, of virtual cluster {@code name}'s names. */
        public Target in(String name) {
            return new Target(broker, Optional.of(name));
        }
    }

    /** A virtual cluster's own names: the shared ones' first labels under its suffix. */
    public record VirtualClusterHosts(String name, SniHosts hosts) {
    }

    /**
     * A setting that is not a host name, a pattern without exactly one {@link #NODE_ID}, or an
     * sniHostSuffix that does not fit ({@link #withVirtualCluster}).
     */
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

    /** The settings a {@link SniHosts} is made of. */
    public enum Part { BOOTSTRAP_HOST, BROKER_HOST_PATTERN, SNI_HOST_SUFFIX }

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

    /**
     * These names with virtual cluster {@code name}'s under {@code suffix} ({@link #under}) as well.
     *
     * @throws InvalidName ({@link Part#SNI_HOST_SUFFIX}) when the suffix is not a host name, a
     *     shared name is under it, or it is under another virtual cluster's suffix or that one under
     *     it; ({@link Part#BROKER_HOST_PATTERN}) when the pattern's first label has no {@link #NODE_ID}
     */
    public SniHosts withVirtualCluster(String name, String suffix) {
        SniHosts own = under(suffix);
        String domain = suffix.trim().toLowerCase(Locale.ROOT);
        // under() found the id in the pattern's first label, so every broker's name is as far under as broker 0's.
        for (String shared : new String[] {bootstrapHost, brokerHost(0)}) {
            if (isAtOrUnder(shared, domain)) {
                throw new InvalidName(Part.SNI_HOST_SUFFIX, "the shared name " + (shared.equals(bootstrapHost) ? shared
                        : brokerHostPattern()) + " is under it, so a client could not say which it means");
            }
        }
        for (Map.Entry<String, VirtualClusterHosts> other : virtualClusters.entrySet()) {
            if (isAtOrUnder(domain, other.getKey()) || isAtOrUnder(other.getKey(), domain)) {
                throw new InvalidName(Part.SNI_HOST_SUFFIX, "it overlaps " + other.getKey() + ", the sniHostSuffix of "
                        + "virtual cluster '" + other.getValue().name() + "'; one may not be under the other");
            }
        }
        Map<String, VirtualClusterHosts> clusters = new LinkedHashMap<>(virtualClusters);
        clusters.put(domain, new VirtualClusterHosts(name, own));
        return new SniHosts(bootstrapHost, brokerPrefix, brokerSuffix, clusters);
    }

    /**
     * The names of a virtual cluster placed by {@code suffix}: the first label of the bootstrap's
     * name and the first label of the broker pattern (which must hold {@link #NODE_ID}), each
     * followed by {@code .suffix}.
     *
     * @throws InvalidName as {@link #withVirtualCluster} says, but for overlaps
     */
    public SniHosts under(String suffix) {
        String domain = suffix.trim().toLowerCase(Locale.ROOT);
        checkName(Part.SNI_HOST_SUFFIX, domain);
        if (brokerPrefix.contains(".")) {
            throw new InvalidName(Part.BROKER_HOST_PATTERN, "with an sniHostSuffix, " + NODE_ID + " must be in the "
                    + "pattern's first label (broker-" + NODE_ID + ".kafka.example.com), which goes in front of the "
                    + "suffix");
        }
        String bootstrap = firstLabel(bootstrapHost) + "." + domain;
        String pattern = brokerPrefix + NODE_ID + firstLabel(brokerSuffix) + "." + domain;
        try {
            return of(bootstrap, pattern);
        } catch (InvalidName e) {
            throw new InvalidName(Part.SNI_HOST_SUFFIX, "the names under it (" + bootstrap + ", " + pattern
                    + ") are not valid: " + e.getMessage());
        }
    }

    /** The names clients may ask for, as a refusal names them. */
    public String describe() {
        String shared = bootstrapHost + " or " + brokerHostPattern();
        return virtualClusters.isEmpty() ? shared : shared + ", or the same first labels under a virtual cluster's "
                + "sniHostSuffix (" + String.join(", ", virtualClusters.keySet()) + ")";
    }

    private static String firstLabel(String name) {
        int dot = name.indexOf('.');
        return dot < 0 ? name : name.substring(0, dot);
    }

    private static boolean isAtOrUnder(String name, String domain) {
        return name.equals(domain) || name.endsWith("." + domain);
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
     * bootstrap nor a broker's, of the shared names or of a virtual cluster's. Case does not
     * matter (DNS names do not have one).
     */
    public Optional<Target> resolve(String serverName) {
        if (serverName == null || this == NONE) {
            return Optional.empty();
        }
        String name = serverName.toLowerCase(Locale.ROOT);
        if (!virtualClusters.isEmpty()) {
            // A virtual cluster's names are one label in front of its suffix; no shared name is under one.
            VirtualClusterHosts cluster = virtualClusters.get(name.substring(name.indexOf('.') + 1));
            if (cluster != null) {
                return cluster.hosts().resolve(name).map(target -> target.in(cluster.name()));
            }
        }
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
