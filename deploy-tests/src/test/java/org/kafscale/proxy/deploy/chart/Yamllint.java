package org.kafscale.proxy.deploy.chart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.kafscale.proxy.deploy.RepoPaths;

/** Debian's yamllint (installed by scripts/ensure-test-tools.sh) with the repository's settings. */
final class Yamllint {
    private static final long TIMEOUT_SECONDS = 60;

    private Yamllint() {
    }

    /** yamllint's verdict: exit code 0 means clean; the output lists every problem. */
    record Result(int exitCode, String output) {
    }

    static Path config() {
        return RepoPaths.root().resolve("helm").resolve("yamllint.yaml");
    }

    static Result check(List<Path> files) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("yamllint", "--strict", "--format", "parsable",
                "-c", config().toString()));
        files.forEach(f -> command.add(f.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("yamllint did not finish in " + TIMEOUT_SECONDS + " s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.exitValue(), output);
    }
}
