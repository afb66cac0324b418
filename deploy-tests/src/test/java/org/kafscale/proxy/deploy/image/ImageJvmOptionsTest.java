package org.kafscale.proxy.deploy.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.deploy.RepoPaths;

/**
 * The image's JDK_JAVA_OPTIONS on this machine's Java 17: a flag that a JVM 17 does not know
 * would stop the container at start, so the options are handed to a real `java` here.
 */
class ImageJvmOptionsTest {

    @Test
    void java17AcceptsTheImagesOptionsAndSizesTheHeapByPercentage() throws Exception {
        // Given
        String options = Dockerfile.read(RepoPaths.dockerfile()).finalStage().env().get("JDK_JAVA_OPTIONS");
        ProcessBuilder command = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+PrintFlagsFinal", "-version")
                .redirectErrorStream(true);
        command.environment().put("JDK_JAVA_OPTIONS", options);

        // When
        Process process = command.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));

        // Then
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("Picked up JDK_JAVA_OPTIONS"), output);
        assertFalse(output.contains("Unrecognized VM option"), output);
        Matcher percentage = Pattern.compile("-XX:MaxRAMPercentage=(\\d+)").matcher(options);
        assertTrue(percentage.find(), options);
        assertTrue(output.matches("(?s).*double MaxRAMPercentage\\s+= " + percentage.group(1) + "\\.0+\\s.*"),
                "MaxRAMPercentage not applied");
        assertTrue(output.matches("(?s).*bool ExitOnOutOfMemoryError\\s+= true\\s.*"), "ExitOnOutOfMemoryError not applied");
    }
}
