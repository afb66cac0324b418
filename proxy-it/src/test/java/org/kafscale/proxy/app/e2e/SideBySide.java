package org.kafscale.proxy.app.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.kafscale.proxy.testkit.KafkaCluster;

/**
 * A Kafka tool run the same way twice, once with the brokers' bootstrap and once with the proxy's,
 * each output reduced to what must not differ between the two: the addresses (a broker's or the
 * proxy's are both {@code <kafka>}), topic ids, column padding and the frames of an error's stack
 * trace are masked, nothing else. Both outputs go to the test's log.
 */
final class SideBySide {
    private static final Pattern TOPIC_ID = Pattern.compile("TopicId: \\S+");
    /** A stack frame of a tool's error trace: its line numbers are the test's, not the tool's answer. */
    private static final Pattern STACK_FRAME = Pattern.compile("^\\s*(at \\S+\\(.*\\)|\\.\\.\\. \\d+ more)$");
    private static final Pattern BLANKS = Pattern.compile("[ \\t]+");
    /** Logback's test pattern: a line a logger wrote from the tool's thread, not the tool's output. */
    private static final Pattern LOG_LINE = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO|WARN|ERROR) .*");

    private final KafkaCluster cluster;
    private final RunningProxy proxy;
    private final String adminConfig;

    /** {@code adminConfig}: a file of Admin client settings every run uses. */
    SideBySide(KafkaCluster cluster, RunningProxy proxy, String adminConfig) {
        this.cluster = cluster;
        this.proxy = proxy;
        this.adminConfig = adminConfig;
    }

    /** The tool's normalised output with {@code --bootstrap-server} of the brokers. */
    String direct(KafkaTool tool, String... args) {
        return logged("direct", normalised(run(tool, cluster.bootstrapServers(), args)));
    }

    /** The tool's normalised output with {@code --bootstrap-server} of the proxy. */
    String proxied(KafkaTool tool, String... args) {
        return logged("proxied", normalised(run(tool, proxy.bootstrap(), args)));
    }

    /** Every output in the test's log, so a failure shows both sides, not only the first difference. */
    private static String logged(String side, String output) {
        System.out.println("[" + side + "] " + output.replace("\n", "\n    "));
        return output;
    }

    private KafkaTool.Output run(KafkaTool tool, String bootstrap, String... args) {
        List<String> line = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "--command-config", adminConfig));
        line.addAll(List.of(args));
        return tool.run(line.toArray(String[]::new));
    }

    private String normalised(KafkaTool.Output output) {
        String text = "$ " + output.command() + "\nexit " + output.exitCode() + "\n" + output.stdout()
                + (output.stderr().isBlank() ? "" : "--- stderr\n" + output.stderr());
        text = text.replace(cluster.bootstrapServers(), "<kafka>");
        for (int id : cluster.brokerIds()) {
            text = text.replace(cluster.brokerAddress(id), "<kafka>");
        }
        for (String broker : cluster.bootstrapServers().split(",")) {
            text = text.replace(broker, "<kafka>");
        }
        text = text.replace(proxy.bootstrap(), "<kafka>");
        text = TOPIC_ID.matcher(text).replaceAll("TopicId: <id>");
        String lines = text.lines()
                .filter(l -> !LOG_LINE.matcher(l).matches() && !STACK_FRAME.matcher(l).matches())
                .map(l -> BLANKS.matcher(l).replaceAll(" ").strip())
                .collect(Collectors.joining("\n"));
        return lines.strip();
    }
}
