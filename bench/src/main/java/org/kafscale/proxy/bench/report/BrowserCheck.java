package org.kafscale.proxy.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens an {@link HtmlReport} in a real headless browser (Debian's Chromium, which
 * {@code scripts/ensure-browser.sh} installs) and reads back what its script did: how many charts
 * it drew (the page marks {@code data-charts-drawn} when its last chart is built) and how many
 * canvases exist; optionally a screenshot. A page whose script failed (a syntax error, data that
 * does not parse) draws nothing and is caught here, which reading the HTML as text cannot do.
 */
public final class BrowserCheck {
    public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Pattern DRAWN = Pattern.compile("data-charts-drawn=\"(\\d+)\"");
    private static final Pattern CANVAS = Pattern.compile("<canvas");
    private static final long DEADLINE_SECONDS = 60;

    private BrowserCheck() {
    }

    /** What the browser made of the page. */
    public record Seen(int chartsDrawn, int canvases) {
    }

    public static Seen open(Path html, Path screenshot) throws IOException, InterruptedException {
        String dom = run(html, List.of("--dump-dom"));
        if (screenshot != null) {
            run(html, List.of("--screenshot=" + screenshot.toAbsolutePath(), "--window-size=1100,2400"));
        }
        Matcher drawn = DRAWN.matcher(dom);
        int canvases = 0;
        Matcher canvas = CANVAS.matcher(dom);
        while (canvas.find()) {
            canvases++;
        }
        return new Seen(drawn.find() ? Integer.parseInt(drawn.group(1)) : 0, canvases);
    }

    private static String run(Path html, List<String> action) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("report-browser");
        // The flags that keep Chromium from reaching for the network this machine does not have.
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--virtual-time-budget=5000"));
        command.addAll(action);
        command.add(html.toAbsolutePath().toUri().toString());
        Path out = Files.createTempFile("report-browser", ".out");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(false)
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("Chromium did not finish within " + DEADLINE_SECONDS + " s");
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
