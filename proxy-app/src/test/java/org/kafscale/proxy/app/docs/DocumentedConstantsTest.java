package org.kafscale.proxy.app.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.NumberFormat;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fixed limits and intervals that the docs state in prose, checked against the constants in
 * the code, so a changed constant fails here until its sentence changes with it (settings are
 * checked by ConfigDocsTest; these are the numbers no setting carries). Each claim is a phrase of
 * the doc with the constant's value rendered as the doc writes it.
 */
class DocumentedConstantsTest {
    private static final Path DOCS = Path.of("..", "docs");

    static Stream<Claim> claims() {
        WriteBufferWaterMark brokerChannel = constant("org.kafscale.proxy.core.backend.BackendConnector",
                "WRITE_WATER_MARK");
        return Stream.of(
                new Claim("architecture.md", "unwritable (%s written and not yet taken by the broker's socket",
                        mib(brokerChannel.high())),
                new Claim("architecture.md", "writable again under %s", mib(brokerChannel.low())),
                new Claim("architecture.md", "what its broker may legitimately hold it for + %s",
                        seconds(constant("org.kafscale.proxy.core.server.ConnectionRequests", "DEADLINE_MARGIN"))),
                new Claim("architecture.md", "(`BrokerApiVersionsProbe`, every %s)",
                        seconds(constant("org.kafscale.proxy.app.ProxyRuntime", "PROBE_INTERVAL"))),
                new Claim("architecture.md", "and every %s regardless",
                        seconds(constant("org.kafscale.proxy.core.backend.BrokerApiVersionsProbe", "REFRESH"))),
                new Claim("architecture.md", "ApiVersions is held (at most %s",
                        seconds(constant("org.kafscale.proxy.core.server.RequestDispatcher", "FIRST_PROBE_WAIT"))),
                new Claim("architecture.md", "plus up to %s idle channels per broker for Fetch",
                        word(constant("org.kafscale.proxy.core.backend.BackendChannelPool", "MAX_POLL_CHANNELS"))),
                new Claim("architecture.md", "A connection keeps at most %s sessions",
                        String.valueOf((int) constant("org.kafscale.proxy.routing.share.ShareSessions", "MAX_SESSIONS"))),
                new Claim("architecture.md", "of at most %s partitions each",
                        grouped(constant("org.kafscale.proxy.routing.share.ClientShareSession", "MAX_PARTITIONS"))),
                new Claim("architecture.md", "(capped at Kafka's default %s)", String.valueOf((int) constant(
                        "org.kafscale.proxy.core.local.DescribeTopicPartitionsResponder", "MAX_PARTITIONS"))),
                new Claim("architecture.md", "linger ≤ %s ms for parts already on their way", String.valueOf(
                        (long) constant("org.kafscale.proxy.routing.fetch.FetchCompletion", "DATA_LINGER_MICROS") / 1000)),
                new Claim("architecture.md", "at most one client round trip in a steady stream, at most %s",
                        millis(constant("org.kafscale.proxy.routing.fetch.ParkedPolls", "MAX_HELD_MILLIS"))),
                new Claim("topology.md", "for at most %s ids",
                        grouped(constant("org.kafscale.proxy.discovery.CoordinatorCache", "MAX_ENTRIES"))),
                new Claim("topology.md", "ids longer than %s characters are looked up each time",
                        grouped(constant("org.kafscale.proxy.discovery.CoordinatorCache", "MAX_KEY_CHARS"))),
                new Claim("topology.md", "(up to %s attempts;",
                        word(constant("org.kafscale.proxy.routing.engine.RetryPolicy", "MAX_ATTEMPTS"))),
                new Claim("operations.md", "or one in its chain, expires within %s days", String.valueOf(
                        DocumentedConstantsTest.<Duration>constant("org.kafscale.proxy.app.health.CertificateExpiry", "WARN_WITHIN").toDays())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("claims")
    void theDocStatesTheValueTheCodeHas(Claim claim) throws IOException {
        String doc = normalised(Files.readString(DOCS.resolve(claim.doc())));
        String phrase = normalised(claim.phrase().formatted(claim.value()));
        assertTrue(doc.contains(phrase), "docs/" + claim.doc() + " should say \"" + phrase
                + "\" (the value in the code); change the sentence with the constant");
    }

    /** A phrase of {@code doc} with {@code %s} where the constant's value stands. */
    record Claim(String doc, String phrase, String value) {
        @Override
        public String toString() {
            return doc + ": " + phrase.formatted(value);
        }
    }

    /** Line breaks and indentation in Markdown prose do not matter. */
    private static String normalised(String text) {
        return text.replaceAll("\\s+", " ");
    }

    /** A constant of the code by class and field name, private ones included. */
    @SuppressWarnings("unchecked")
    private static <T> T constant(String className, String field) {
        try {
            Field f = Class.forName(className).getDeclaredField(field);
            f.setAccessible(true);
            return (T) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("The constant " + className + "." + field + " the docs state is gone: " + e, e);
        }
    }

    private static String mib(int bytes) {
        return bytes / (1024 * 1024) + " MiB";
    }

    private static String seconds(Duration duration) {
        return duration.toSeconds() + " s";
    }

    private static String millis(long millis) {
        return seconds(Duration.ofMillis(millis));
    }

    private static String grouped(int value) {
        return NumberFormat.getIntegerInstance(Locale.US).format(value);
    }

    private static String word(int value) {
        List<String> words = List.of("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine");
        return value < words.size() ? words.get(value) : String.valueOf(value);
    }
}
