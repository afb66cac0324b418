package org.kafscale.proxy.core.security.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import javax.security.auth.x500.X500Principal;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class CertificatePrincipalsTest {
    private static final X500Principal SUBJECT = new X500Principal("CN=App,OU=payments,O=example");

    @Test
    void defaultRuleKeepsTheWholeSubject() {
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "CN=App,OU=payments,O=example"),
                new CertificatePrincipals("DEFAULT").ofSubject(SUBJECT));
    }

    @Test
    void rulesMapTheSubjectAsABrokerWould() {
        CertificatePrincipals principals = new CertificatePrincipals("RULE:^CN=([^,]+),OU=payments.*$/$1/L,DEFAULT");
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "app"), principals.ofSubject(SUBJECT));
    }

    @Test
    void aSubjectNoRuleMatchesIsRefused() {
        CertificatePrincipals principals = new CertificatePrincipals("RULE:^CN=([^,]+),OU=billing.*$/$1/");
        assertThrows(IllegalStateException.class, () -> principals.ofSubject(SUBJECT));
    }

    @Test
    void rulesThatDoNotParseAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CertificatePrincipals("RULE:broken"));
    }
}
