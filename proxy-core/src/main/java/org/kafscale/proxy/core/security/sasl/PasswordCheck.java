package org.kafscale.proxy.core.security.sasl;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;

/**
 * Checks a PLAIN password against the user's SCRAM credential: derives the stored key from the
 * password with the credential's salt and iterations (Kafka's {@link ScramFormatter}) and compares
 * in constant time. So PLAIN needs no password in the file either, only the salted hash SCRAM keeps.
 */
final class PasswordCheck {
    private PasswordCheck() {
    }

    /** Whether the password matches one of the user's credentials (the stronger mechanism is tried first). */
    static boolean matches(Map<SaslMechanism, ScramCredential> credentials, char[] password) {
        for (SaslMechanism mechanism : new SaslMechanism[] {SaslMechanism.SCRAM_SHA_512, SaslMechanism.SCRAM_SHA_256}) {
            ScramCredential credential = credentials.get(mechanism);
            if (credential != null) {
                return matches(mechanism, credential, password);
            }
        }
        return false;
    }

    private static boolean matches(SaslMechanism mechanism, ScramCredential credential, char[] password) {
        try {
            ScramFormatter formatter = new ScramFormatter(mechanism.scram().orElseThrow());
            byte[] salted = formatter.saltedPassword(new String(password), credential.salt(), credential.iterations());
            byte[] storedKey = formatter.storedKey(formatter.clientKey(salted));
            return MessageDigest.isEqual(storedKey, credential.storedKey());
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("SCRAM is not available in this JVM: " + e, e);
        }
    }
}
