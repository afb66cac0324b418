package org.kafscale.proxy.app.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kafscale.proxy.core.encryption.EncryptionRule;
import org.kafscale.proxy.core.quota.TenantQuotas;
import org.kafscale.proxy.core.tenant.VirtualClusters;
import org.kafscale.proxy.core.validation.ValidationRules;
import org.kafscale.proxy.lfs.resolve.ResolveRule;

/**
 * What the gateway file (KAFSCALE_PROXY_GATEWAY_FILE) configures: its virtual clusters, and the
 * quotas and ACL files of those that have any, the audit trail and record validation.
 *
 * @param quotas each virtual cluster's quotas, by its name; a virtual cluster without is absent
 * @param aclFiles each virtual cluster's own ACL file, in its own names, by its name; a virtual
 *     cluster without is absent
 * @param listeners each virtual cluster's own listener (its bind address, whose port is advertised
 *     to its clients), by its name; a virtual cluster reached through the shared listener is absent
 * @param brokerPortBases in advertise mode ports, the first broker port of each virtual cluster's
 *     own listener (broker id N on that port + N), by its name
 * @param credentialsFiles the SASL credentials file of each virtual cluster whose own listener
 *     checks users against a file of its own, by its name
 * @param audit the audit trail's sinks ({@code audit}), when configured
 * @param validation the record validation rules, global and per virtual cluster ({@link ValidationRules#NONE}: off)
 * @param encryption the record encryption rules, in the file's order (the first whose topics match wins)
 * @param sniHostSuffixes in advertise mode sni, the suffix under which each virtual cluster placed
 *     by TLS server name has its own names, by its name
 * @param lfsResolve the rules of LFS resolution on Fetch ({@code lfsResolve}, {@link GatewayLfsResolve})
 */
public record Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas, Map<String, Path> aclFiles,
                      Map<String, HostPort> listeners, Map<String, Integer> brokerPortBases,
                      Map<String, Path> credentialsFiles, Optional<AuditSettings> audit,
                      ValidationRules validation, List<EncryptionRule> encryption,
                      Map<String, String> sniHostSuffixes, List<ResolveRule> lfsResolve) {
    public static final Gateway NONE = new Gateway(VirtualClusters.NONE, Map.of());

    public Gateway {
        quotas = Map.copyOf(quotas);
        aclFiles = Map.copyOf(aclFiles);
        listeners = Map.copyOf(listeners);
        brokerPortBases = Map.copyOf(brokerPortBases);
        credentialsFiles = Map.copyOf(credentialsFiles);
        encryption = List.copyOf(encryption);
        sniHostSuffixes = Map.copyOf(sniHostSuffixes);
        lfsResolve = List.copyOf(lfsResolve);
    }

    /** A gateway without LFS resolution rules. */
    public Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas, Map<String, Path> aclFiles,
                   Map<String, HostPort> listeners, Map<String, Integer> brokerPortBases,
                   Map<String, Path> credentialsFiles, Optional<AuditSettings> audit,
                   ValidationRules validation, List<EncryptionRule> encryption, Map<String, String> sniHostSuffixes) {
        this(virtualClusters, quotas, aclFiles, listeners, brokerPortBases, credentialsFiles, audit, validation,
                encryption, sniHostSuffixes, List.of());
    }

    /** A gateway with no virtual cluster placed by TLS server name. */
    public Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas, Map<String, Path> aclFiles,
                   Map<String, HostPort> listeners, Map<String, Integer> brokerPortBases,
                   Map<String, Path> credentialsFiles, Optional<AuditSettings> audit,
                   ValidationRules validation, List<EncryptionRule> encryption) {
        this(virtualClusters, quotas, aclFiles, listeners, brokerPortBases, credentialsFiles, audit, validation,
                encryption, Map.of());
    }

    /**
     * Whether every virtual cluster has a listener or TLS server names of its own, so none needs
     * clients to authenticate.
     */
    public boolean placesEveryClientByListener() {
        return virtualClusters.all().stream().allMatch(cluster -> listeners.containsKey(cluster.name())
                || sniHostSuffixes.containsKey(cluster.name()));
    }

    /** Virtual clusters and quotas, nothing else. */
    public Gateway(VirtualClusters virtualClusters, Map<String, TenantQuotas> quotas) {
        this(virtualClusters, quotas, Map.of(), Map.of(), Map.of(), Map.of(), Optional.empty(), ValidationRules.NONE,
                List.of());
    }
}
