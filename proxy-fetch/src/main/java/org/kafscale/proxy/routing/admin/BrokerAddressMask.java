package org.kafscale.proxy.routing.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.kafscale.proxy.core.topology.BrokerEndpoint;

/**
 * Hides the broker addresses a DescribeConfigs answer carries, so a client of the proxy never
 * learns where the brokers (or controllers) listen. A value is blanked (null, marked sensitive, as
 * Kafka shows a password) rather than rewritten: the proxy's address in {@code listeners} would
 * describe no socket of that broker. Blanked are the configs that hold addresses by definition and
 * any other value that names a known broker's host:port.
 */
final class BrokerAddressMask {
    /** Configs whose values are listener or controller addresses. */
    static final Set<String> ADDRESS_CONFIGS = Set.of("listeners", "advertised.listeners",
            "controller.quorum.voters", "controller.quorum.bootstrap.servers");

    private final List<String> brokerAddresses;

    BrokerAddressMask(Iterable<BrokerEndpoint> brokers) {
        List<String> addresses = new ArrayList<>();
        brokers.forEach(b -> addresses.add(b.host() + ":" + b.port()));
        this.brokerAddresses = List.copyOf(addresses);
    }

    /** The result with every address-bearing value (and synonym value) blanked; changed in place. */
    DescribeConfigsResult mask(DescribeConfigsResult result) {
        for (DescribeConfigsResourceResult config : result.configs()) {
            if (hidesAddress(config.name(), config.value())) {
                config.setValue(null).setIsSensitive(true);
            }
            for (DescribeConfigsSynonym synonym : config.synonyms()) {
                if (hidesAddress(synonym.name(), synonym.value()) || hidesAddress(config.name(), synonym.value())) {
                    synonym.setValue(null);
                }
            }
        }
        return result;
    }

    private boolean hidesAddress(String name, String value) {
        if (value == null) {
            return false;
        }
        if (ADDRESS_CONFIGS.contains(name)) {
            return true;
        }
        for (String address : brokerAddresses) {
            if (value.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
