package org.kafscale.proxy.core.security.sasl;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The user a client's first SASL token claims to be, before anything is proven: PLAIN's
 * authentication id and SCRAM's {@code n=} attribute are sent in clear. Only for the audit trail of
 * a failed login (who tried); never for a decision. OAUTHBEARER's token is not read here: its
 * subject means nothing until its signature is checked.
 */
final class ClaimedUser {
    /** Longer names are not kept: a client must not put a megabyte into every audit line. */
    static final int MAX_LENGTH = 256;

    private ClaimedUser() {
    }

    /** The claimed user, or null when the token names none (or is not one this reads). */
    static KafkaPrincipal of(SaslMechanism mechanism, byte[] token) {
        String name = switch (mechanism) {
            case PLAIN -> plain(token);
            case SCRAM_SHA_256, SCRAM_SHA_512 -> scram(token);
            default -> null;
        };
        if (name == null || name.isEmpty() || name.length() > MAX_LENGTH) {
            return null;
        }
        return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, name);
    }

    /** {@code [authzid] NUL authcid NUL passwd}: the authentication id (the password is never read). */
    private static String plain(byte[] token) {
        int first = indexOf(token, 0);
        if (first < 0) {
            return null;
        }
        int second = indexOf(token, first + 1);
        if (second < 0) {
            return null;
        }
        return new String(token, first + 1, second - first - 1, StandardCharsets.UTF_8);
    }

    /** {@code gs2-header n=user,r=nonce}: the user, with SCRAM's {@code =2C} and {@code =3D} undone. */
    private static String scram(byte[] token) {
        String text = new String(token, StandardCharsets.UTF_8);
        for (String attribute : text.split(",")) {
            if (attribute.startsWith("n=")) {
                return attribute.substring(2).replace("=2C", ",").replace("=3D", "=");
            }
        }
        return null;
    }

    private static int indexOf(byte[] token, int from) {
        for (int i = from; i < token.length; i++) {
            if (token[i] == 0) {
                return i;
            }
        }
        return -1;
    }
}
