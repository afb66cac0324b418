package org.kafscale.proxy.routing.apis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.apis.ApiCatalog;

/**
 * Every key of kafka-clients' {@code ApiKeys} has an entry in {@link Apis} (a kafka-clients
 * upgrade that adds a key fails here until the key is placed), and docs/architecture.md carries,
 * between its api-table markers, the table the registry's {@link ApiCatalog} renders. To
 * regenerate the doc after changing an entry: {@code ./mvnw -B -o -q -pl proxy-fetch -am test
 * -Dtest=ApiCatalogTest -Dsurefire.failIfNoSpecifiedTests=false -Dapi.docs.write=true}.
 */
class ApiCatalogTest {
    private static final ApiCatalog APIS = Apis.catalog();
    private static final String WRITE_PROPERTY = "api.docs.write";
    private static final String START = "<!-- api-table:start -->\n";
    private static final String END = "<!-- api-table:end -->";

    @Test
    void everyApiKeyHasASpecServedOrRefused() {
        List<ApiKeys> unplaced = new ArrayList<>();
        for (ApiKeys api : ApiKeys.values()) {
            if (APIS.spec(api).isEmpty()) {
                unplaced.add(api);
            }
        }
        assertEquals(List.of(), unplaced, "keys with no entry in Apis");
    }

    @Test
    void eachSpecIsFiledUnderItsOwnKeyAndSaysWhy() {
        APIS.all().forEach((api, spec) -> {
            assertEquals(api, spec.api());
            assertFalse(spec.doc().isBlank(), api + " has no doc row");
        });
    }

    @Test
    void disksAreServedOnlyWhereTheConnectionAddressesABroker() {
        assertFalse(APIS.servedOn(ApiKeys.DESCRIBE_LOG_DIRS, false));
        assertTrue(APIS.servedOn(ApiKeys.DESCRIBE_LOG_DIRS, true));
        assertTrue(APIS.servedOn(ApiKeys.PRODUCE, false));
        assertFalse(APIS.servedOn(ApiKeys.SASL_HANDSHAKE, true), "SASL is the listener's own, never routed");
    }

    @Test
    void architectureDocCarriesTheGeneratedTable() throws IOException {
        // Given
        Path doc = repositoryRoot().resolve("docs/architecture.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertTrue(start >= 0 && end > start, doc + " has no " + START.strip() + " ... " + END + " section");
        // When
        if (Boolean.getBoolean(WRITE_PROPERTY)) {
            text = text.substring(0, start + START.length()) + APIS.markdown() + text.substring(end);
            Files.writeString(doc, text, StandardCharsets.UTF_8);
        }
        // Then
        assertTrue(text.contains(START + APIS.markdown() + END), doc + " does not match the entries of Apis. Regenerate it with:"
                + " ./mvnw -B -o -q -pl proxy-fetch -am test -Dtest=ApiCatalogTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false -D" + WRITE_PROPERTY + "=true");
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (with mvnw and docs/) above " + Path.of("").toAbsolutePath());
    }
}
