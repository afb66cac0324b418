package org.kafscale.proxy.core.apis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.security.authz.Guard;

/**
 * A spec cannot serve a key without a check of its own, and says on which connections it is
 * served. The proxy's own specs, one per key, are proxy-fetch's {@code routing.apis.Apis}.
 */
class ApiSpecTest {

    @Test
    void aServedKeyCannotBePlacedWithoutACheckOfItsOwn() {
        // Given a forwarded key whose entry names only the fail-closed guard of refused keys
        // When / Then: the spec is refused, so the catalog would fail as it loads
        assertThrows(IllegalArgumentException.class, () -> new ApiSpec(ApiKeys.PRODUCE, ApiSpec.Serving.FORWARDED,
                Guard.refusedWhole(), "split by partition owner"));
        // A refused key takes it: the dispatcher closes on it before any check
        assertTrue(new ApiSpec(ApiKeys.VOTE, ApiSpec.Serving.REFUSED, Guard.refusedWhole(), "controller-only")
                .guard().refusesWhole());
    }

    @Test
    void aKeyAboutOneBrokerIsServedOnlyWhereTheConnectionAddressesOne() {
        ApiCatalog catalog = ApiCatalog.of(Map.of(ApiKeys.DESCRIBE_LOG_DIRS,
                new ApiSpec(ApiKeys.DESCRIBE_LOG_DIRS, ApiSpec.Serving.ADDRESSED_BROKER_ONLY, Guard.unchecked(), "disks")));
        assertFalse(catalog.servedOn(ApiKeys.DESCRIBE_LOG_DIRS, false));
        assertTrue(catalog.servedOn(ApiKeys.DESCRIBE_LOG_DIRS, true));
        assertFalse(catalog.servedOn(ApiKeys.PRODUCE, true), "a key with no spec is served nowhere");
        assertTrue(catalog.markdown().contains("| 0 | Produce | **undescribed** |"), catalog.markdown());
    }
}
