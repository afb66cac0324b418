package org.kafscale.proxy.deploy.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.deploy.RepoPaths;

/**
 * The packaged demo jar logs: SLF4J inside it finds logback and logback finds the proxy's
 * logback.xml (security review M5: the jar used to fall back to SLF4J's no-op logger and print
 * nothing). The jar's own classes are loaded apart from this test's, as {@code java -jar} would.
 * The reactor packages proxy-demo before this module's tests run.
 */
class DemoJarLogsTest {
    private static final String LOGBACK_CONTEXT = "ch.qos.logback.classic.LoggerContext";
    /** The appender proxy-app's logback.xml defines. */
    private static final String APPENDER = "PLAIN";

    @Test
    void demoJarLogsThroughLogbackWithTheProxysConfiguration() throws Exception {
        // Given the shaded demo jar
        Path jar = demoJar();
        assertTrue(Files.isRegularFile(jar), jar + " is missing: package proxy-demo first (./mvnw -B -o package -pl proxy-demo -am)");
        try (URLClassLoader demo = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            // When SLF4J inside the jar picks its logger factory
            Object factory = demo.loadClass("org.slf4j.LoggerFactory").getMethod("getILoggerFactory").invoke(null);

            // Then it is logback's, configured from the jar's logback.xml
            assertEquals(LOGBACK_CONTEXT, factory.getClass().getName(), "SLF4J provider of the demo jar");
            assertNotNull(demo.findResource("logback.xml"), "logback.xml in the demo jar");
            Object root = factory.getClass().getMethod("getLogger", String.class).invoke(factory, "ROOT");
            Object appender = root.getClass().getMethod("getAppender", String.class).invoke(root, APPENDER);
            assertNotNull(appender, "the root logger writes through logback.xml's " + APPENDER + " appender");
        }
    }

    /** Where proxy-demo's shade configuration writes the jar. */
    private static Path demoJar() throws Exception {
        Path module = RepoPaths.root().resolve("proxy-demo");
        var finalNames = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(module.resolve("pom.xml").toFile()).getElementsByTagName("finalName");
        if (finalNames.getLength() != 1) {
            throw new IOException("proxy-demo/pom.xml has " + finalNames.getLength() + " <finalName>");
        }
        return module.resolve("target").resolve(finalNames.item(0).getTextContent().trim() + ".jar");
    }
}
