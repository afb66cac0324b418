package org.kafscale.proxy.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.app.config.ProxyConfig;
import org.kafscale.proxy.testkit.FreePorts;

/**
 * The demo does what it says: the shell lines it prints (kcat produce and consume, an LFS
 * round trip with curl) work when pasted into a shell. Runs on free ports instead of the
 * well-known ones, by the same settings a user would override.
 */
class DemoIT {
    private static final Duration SCRIPT_DEADLINE = Duration.ofMinutes(2);

    @TempDir
    Path workDir;

    @Test
    void thePrintedLinesProduceConsumeAndRoundTripAPayloadThroughLfs() throws Exception {
        // Given
        Map<String, String> ports = Map.of(
                ProxyConfig.ADDR, "127.0.0.1:" + FreePorts.next(),
                ProxyConfig.HEALTH_ADDR, "127.0.0.1:" + FreePorts.next(),
                ConfigKey.LFS_HTTP_ADDR.envName(), "127.0.0.1:" + FreePorts.next());
        // The embedded broker's controller listens on the broker port + 1: both must be free.
        try (Demo demo = Demo.start(ports, FreePorts.block(2), FreePorts.next())) {
            // When: every printed command but the group consumer (which runs until stopped)
            List<String> commands = commands(demo.instructions());
            assertTrue(commands.size() >= 7, "commands printed:\n" + demo.instructions());
            Path script = Files.writeString(workDir.resolve("try.sh"),
                    "set -euo pipefail\n" + String.join("\n", commands) + "\n");
            Process shell = new ProcessBuilder("bash", script.toString()).directory(workDir.toFile())
                    .redirectErrorStream(true).start();
            String output = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(shell.waitFor(SCRIPT_DEADLINE.toSeconds(), TimeUnit.SECONDS), "the lines did not finish");

            // Then
            assertEquals(0, shell.exitValue(), "the printed lines failed:\n" + output);
            assertTrue(output.contains("k1=hello") && output.contains("k2=world"), output);
            assertTrue(output.contains("\"kfs_lfs\":1"), "the envelope record is consumed:\n" + output);
            assertTrue(output.contains("same bytes"), "the LFS round trip returns the same bytes:\n" + output);
        }
    }

    /** The shell lines of the instructions, continuation lines joined; the group consumer left out. */
    private static List<String> commands(String instructions) {
        List<String> commands = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : instructions.lines().toList()) {
            String trimmed = line.strip();
            boolean command = pending.length() > 0
                    || trimmed.matches("^(kcat|printf|head|curl|jq) .*");
            if (!command || !line.startsWith("  ")) {
                continue;
            }
            pending.append(trimmed);
            if (trimmed.endsWith("\\")) {
                pending.setLength(pending.length() - 1);
                continue;
            }
            if (!pending.toString().contains(" -G ")) {
                commands.add(pending.toString());
            }
            pending.setLength(0);
        }
        return commands;
    }
}
