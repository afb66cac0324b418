package org.kafscale.proxy.lfs.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExposureWarningsTest {

    @Test
    void noApiKeyIsWarnedAbout() {
        List<String> warnings = ExposureWarnings.of(HttpSettings.defaults(new InetSocketAddress("127.0.0.1", 8080)));
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("without an API key"), warnings.get(0));
    }

    @Test
    void corsForEveryOriginIsWarnedAboutOnAnAddressOthersReachButNotOnLoopback() {
        HttpSettings everyInterface = withOrigins(new InetSocketAddress(8080), List.of("*"));
        HttpSettings loopback = withOrigins(new InetSocketAddress("127.0.0.1", 8080), List.of("*"));
        HttpSettings named = withOrigins(new InetSocketAddress(8080), List.of("https://app.example"));

        assertEquals(1, ExposureWarnings.of(everyInterface).size());
        assertTrue(ExposureWarnings.of(everyInterface).get(0).contains("every origin"));
        assertEquals(List.of(), ExposureWarnings.of(loopback));
        assertEquals(List.of(), ExposureWarnings.of(named));
    }

    private static HttpSettings withOrigins(InetSocketAddress address, List<String> origins) {
        HttpSettings defaults = HttpSettings.defaults(address);
        return new HttpSettings(address, "key", defaults.readIdleTimeout(), defaults.writeIdleTimeout(),
                defaults.idleTimeout(), defaults.headerTimeout(), defaults.maxHeaderBytes(), defaults.shutdownTimeout(),
                defaults.tls(), origins);
    }
}
