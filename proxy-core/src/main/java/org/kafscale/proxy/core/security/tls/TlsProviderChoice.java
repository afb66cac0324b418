package org.kafscale.proxy.core.security.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Chooses the process's {@link TlsProvider} from what was asked, whether BoringSSL loads, and
 * whether the listener's protocols and cipher suites would mean something else on it
 * ({@link OpenSslDifferences}).
 * <ul>
 *   <li>{@code auto}: BoringSSL when it loads and means the same, else the JDK, saying why;</li>
 *   <li>{@code openssl}: BoringSSL, or an {@link IllegalArgumentException} saying why not;</li>
 *   <li>{@code jdk}: the JDK.</li>
 * </ul>
 */
public final class TlsProviderChoice {
    /** What the operator asked for. */
    public enum Mode {
        AUTO, OPENSSL, JDK;

        /** {@code auto}, {@code openssl} or {@code jdk}, in any case. */
        public static Mode parse(String value) {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        }
    }

    private TlsProviderChoice() {
    }

    /**
     * The provider for this process.
     *
     * @param protocols the Kafka listener's TLS versions; empty without listener TLS
     * @param ciphers the Kafka listener's cipher suites; empty: the provider's defaults
     * @throws IllegalArgumentException when {@code openssl} was asked for and cannot be honoured
     */
    public static TlsProvider choose(Mode mode, List<String> protocols, List<String> ciphers) {
        Optional<Throwable> unavailable = OpenSsl.isAvailable() ? Optional.empty()
                : Optional.of(OpenSsl.unavailabilityCause());
        return choose(mode, unavailable, OpenSslDifferences.ofThisJvm(), protocols, ciphers);
    }

    static TlsProvider choose(Mode mode, Optional<Throwable> unavailable, OpenSslDifferences differences,
                              List<String> protocols, List<String> ciphers) {
        if (mode == Mode.JDK) {
            return new TlsProvider(SslProvider.JDK, "asked for");
        }
        if (unavailable.isPresent()) {
            String why = "BoringSSL (netty-tcnative) does not load here: " + describe(unavailable.get());
            if (mode == Mode.OPENSSL) {
                throw new IllegalArgumentException(why);
            }
            return new TlsProvider(SslProvider.JDK, why);
        }
        Optional<String> difference = differences.of(protocols, ciphers);
        if (difference.isPresent()) {
            String why = "the Kafka listener's TLS protocols or cipher suites would not mean the same on BoringSSL: "
                    + difference.get();
            if (mode == Mode.OPENSSL) {
                throw new IllegalArgumentException(why);
            }
            return new TlsProvider(SslProvider.JDK, why);
        }
        return new TlsProvider(SslProvider.OPENSSL, mode == Mode.AUTO ? "it loads" : "asked for, and it loads");
    }

    private static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == cause ? String.valueOf(cause) : cause + " (" + root + ")";
    }
}
