package org.kafscale.proxy.core.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TenantNamesTest {
    private final TenantNames names = new TenantNames("a.", "ga.", "ta.");

    @Test
    void clientNamesBecomeRealNamesAndBack() {
        assertEquals("a.orders", names.topic("orders"));
        assertEquals("orders", names.clientTopic("a.orders"));
        assertEquals("ga.readers", names.group("readers"));
        assertEquals("readers", names.clientGroup("ga.readers"));
        assertEquals("ta.tx", names.transactionalId("tx"));
        assertEquals("tx", names.clientTransactionalId("ta.tx"));
    }

    @Test
    void noNameStaysNoName() {
        assertNull(names.topic(null));
        assertEquals("", names.topic(""));
        assertNull(names.transactionalId(null));
    }

    @Test
    void onlyNamesUnderThePrefixAreOwned() {
        assertTrue(names.ownsTopic("a.orders"));
        assertFalse(names.ownsTopic("b.orders"));
        assertFalse(names.ownsTopic("__consumer_offsets"));
        assertFalse(names.ownsTopic("a."), "the prefix alone names nothing");
        assertFalse(names.ownsGroup("a.readers"), "groups have their own prefix");
    }

    @Test
    void errorMessagesLoseThePrefixOnlyWhereANameStarts() {
        assertEquals("Topic 'orders' not present; group readers; x.a.b",
                names.scrub("Topic 'a.orders' not present; group ga.readers; x.a.b"));
        assertNull(names.scrub(null));
    }

    @Test
    void aPatternOverClientNamesMatchesOnlyTheTenantsRealNames() {
        Pattern real = Pattern.compile(names.topicPattern("ord.*"));
        assertTrue(real.matcher("a.orders").matches());
        assertFalse(real.matcher("b.orders").matches());
        assertFalse(real.matcher("aXorders").matches(), "the prefix's dot is a dot");
    }

    @Test
    void aPrefixMustBeAValidTopicNameStart() {
        assertThrows(IllegalArgumentException.class, () -> TenantNames.prefixed(""));
        assertThrows(IllegalArgumentException.class, () -> TenantNames.prefixed("a/b"));
    }
}
