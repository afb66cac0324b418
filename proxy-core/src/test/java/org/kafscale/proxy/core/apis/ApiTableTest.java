package org.kafscale.proxy.core.apis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md carries, between its api-table markers, the table {@link ApiTable}
 * renders, and that table says "served" of exactly the keys {@link ProxiedApis} routes. To
 * regenerate the doc after changing either:
 * {@code ./mvnw -B -o -q -pl proxy-core test -Dtest=ApiTableTest -Dapi.docs.write=true}.
 */
class ApiTableTest {
    private static final String WRITE_PROPERTY = "api.docs.write";
    private static final String START = "<!-- api-table:start -->\n";
    private static final String END = "<!-- api-table:end -->";

    @Test
    void everyKeyIsEitherServedOrRefusedWithAReason() {
        List<ApiKeys> neither = new ArrayList<>();
        List<ApiKeys> both = new ArrayList<>();
        for (ApiKeys api : ApiKeys.values()) {
            boolean served = ApiTable.howServed(api).isPresent();
            boolean refused = ApiTable.whyRefused(api).isPresent();
            if (served == refused) {
                (served ? both : neither).add(api);
            }
        }
        assertEquals(List.of(), neither, "keys the table does not place");
        assertEquals(List.of(), both, "keys the table calls both served and refused");
    }

    @Test
    void theTableCallsServedExactlyWhatTheProxyRoutes() {
        assertEquals(ProxiedApis.all().keySet(), ApiTable.served().keySet());
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
            text = text.substring(0, start + START.length()) + ApiTable.markdown() + text.substring(end);
            Files.writeString(doc, text, StandardCharsets.UTF_8);
        }
        // Then
        assertTrue(text.contains(START + ApiTable.markdown() + END), doc + " does not match ApiTable. Regenerate it with:"
                + " ./mvnw -B -o -q -pl proxy-core test -Dtest=ApiTableTest -D" + WRITE_PROPERTY + "=true");
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
