package org.kafscale.proxy.core.security.tls;

import io.netty.handler.ssl.OpenSsl;
import java.security.Security;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Where BoringSSL would not do what the listener's protocols and cipher suites say when the JDK
 * does. Each is a case an operator's setting reaches:
 * <ul>
 *   <li>BoringSSL cannot restrict the TLS 1.3 suites: a cipher list is ignored for TLS 1.3;</li>
 *   <li>a list with no TLS 1.2 suite enables every TLS 1.2 suite instead of none;</li>
 *   <li>some JDK suites (the DHE ones, CBC with SHA-256) do not exist in BoringSSL;</li>
 *   <li>the JDK refuses TLSv1 and TLSv1.1 through {@code jdk.tls.disabledAlgorithms}, which
 *       BoringSSL does not read: listing them would open the listener to them.</li>
 * </ul>
 * The defaults (TLSv1.3 and TLSv1.2, no cipher list) hit none of them.
 */
final class OpenSslDifferences {
    /** Every TLS 1.3 suite BoringSSL offers, all of them always. */
    static final Set<String> BORINGSSL_TLS13_SUITES =
            Set.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

    private final Predicate<String> openSslHasSuite;
    private final Set<String> jdkDisabled;

    OpenSslDifferences(Predicate<String> openSslHasSuite, Set<String> jdkDisabled) {
        this.openSslHasSuite = openSslHasSuite;
        this.jdkDisabled = jdkDisabled;
    }

    /** Against the BoringSSL that loaded and this JVM's security properties. */
    static OpenSslDifferences ofThisJvm() {
        String disabled = Optional.ofNullable(Security.getProperty("jdk.tls.disabledAlgorithms")).orElse("");
        return new OpenSslDifferences(OpenSsl::isCipherSuiteAvailable,
                Arrays.stream(disabled.split(",")).map(String::trim).collect(Collectors.toSet()));
    }

    /** The first difference these settings hit, said so an operator can act on it; empty: none. */
    Optional<String> of(List<String> protocols, List<String> ciphers) {
        for (String protocol : protocols) {
            if (jdkDisabled.contains(protocol)) {
                return Optional.of("protocol " + protocol + " is refused by the JDK (jdk.tls.disabledAlgorithms) "
                        + "but would be accepted by BoringSSL");
            }
        }
        if (ciphers.isEmpty()) {
            return Optional.empty();
        }
        List<String> tls13 = ciphers.stream().filter(OpenSslDifferences::isTls13Suite).toList();
        List<String> older = ciphers.stream().filter(c -> !isTls13Suite(c) && !c.endsWith("_SCSV")).toList();
        if (protocols.contains("TLSv1.3") && !Set.copyOf(tls13).equals(BORINGSSL_TLS13_SUITES)) {
            return Optional.of("BoringSSL cannot restrict TLS 1.3 cipher suites (it always offers "
                    + String.join(",", BORINGSSL_TLS13_SUITES.stream().sorted().toList()) + "), and the list names "
                    + (tls13.isEmpty() ? "none" : String.join(",", tls13)));
        }
        if (protocols.stream().anyMatch(p -> !p.equals("TLSv1.3")) && older.isEmpty()) {
            return Optional.of("the list names no TLS 1.2 cipher suite, which BoringSSL reads as every TLS 1.2 suite");
        }
        for (String suite : older) {
            if (!openSslHasSuite.test(suite)) {
                return Optional.of("cipher suite " + suite + " does not exist in BoringSSL");
            }
        }
        return Optional.empty();
    }

    /** JSSE names TLS 1.3 suites without a key exchange ({@code TLS_AES_128_GCM_SHA256}); older ones have {@code _WITH_}. */
    private static boolean isTls13Suite(String suite) {
        return !suite.contains("_WITH_") && !suite.endsWith("_SCSV");
    }
}
