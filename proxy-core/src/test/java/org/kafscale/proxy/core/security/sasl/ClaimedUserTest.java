package org.kafscale.proxy.core.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClaimedUserTest {
    @Test
    void readsScramsUserWithItsEscapesUndone() {
        assertEquals("User:alice", claimed(SaslMechanism.SCRAM_SHA_512, "n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL"));
        assertEquals("User:a,b=c", claimed(SaslMechanism.SCRAM_SHA_256, "n,a=x,n=a=2Cb=3Dc,r=nonce"));
    }

    @Test
    void readsPlainsAuthenticationIdNeverItsPassword() {
        assertEquals("User:bob", claimed(SaslMechanism.PLAIN, "\0bob\0bob-secret"));
        assertEquals("User:bob", claimed(SaslMechanism.PLAIN, "admin\0bob\0bob-secret"));
    }

    @Test
    void readsNothingFromTokensItCannotTrustOrParse() {
        assertNull(claimed(SaslMechanism.OAUTHBEARER, "n,,\u0001auth=Bearer eyJ...\u0001\u0001"));
        assertNull(claimed(SaslMechanism.PLAIN, "no separators"));
        assertNull(claimed(SaslMechanism.SCRAM_SHA_512, "n,,r=only-a-nonce"));
        assertNull(claimed(SaslMechanism.SCRAM_SHA_512, "n,,n=" + "x".repeat(ClaimedUser.MAX_LENGTH + 1) + ",r=1"));
    }

    private static String claimed(SaslMechanism mechanism, String token) {
        var principal = ClaimedUser.of(mechanism, token.getBytes(StandardCharsets.UTF_8));
        return principal == null ? null : principal.toString();
    }
}
