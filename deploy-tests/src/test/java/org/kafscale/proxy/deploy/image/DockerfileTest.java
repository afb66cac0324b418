package org.kafscale.proxy.deploy.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.deploy.RepoPaths;

/**
 * The Dockerfile's promises, checked without a Docker engine (none runs here): what it builds,
 * what it copies, who it runs as, what it exposes and how it is configured.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DockerfileTest {
    private final Dockerfile dockerfile = Dockerfile.read(RepoPaths.dockerfile());
    private final Dockerfile.Stage runtime = dockerfile.finalStage();

    DockerfileTest() throws IOException {
    }

    @Test
    void buildsWithTheWrapperOnAJdk17AndRunsOnAJre17() {
        assertEquals(List.of("build", "runtime", "prebuilt", "stage-3"),
                dockerfile.stages().stream().map(Dockerfile.Stage::name).toList());
        assertEquals("runtime", runtime.parent(), "the default target is the runtime stage plus the built jar");
        assertTrue(dockerfile.stage("build").image().matches("docker\\.io/library/eclipse-temurin:17[.0-9_]*-jdk.*"),
                dockerfile.stage("build").image());
        assertTrue(runtime.image().matches("docker\\.io/library/eclipse-temurin:17[.0-9_]*-jre.*"), runtime.image());
    }

    @Test
    void everyBaseImageIsPinned() {
        for (Dockerfile.Stage stage : dockerfile.stages()) {
            String image = stage.image();
            String tag = image.contains(":") ? image.substring(image.lastIndexOf(':') + 1) : "";
            assertFalse(tag.isEmpty() || tag.equals("latest"), "unpinned base image " + image);
            assertTrue(tag.matches(".*\\d+\\.\\d+\\.\\d+.*"), "tag without a full version: " + image);
            // podman and buildah (scripts/image.sh) resolve no short name without a search list
            assertTrue(image.substring(0, image.indexOf('/') + 1).contains("."), "not fully qualified: " + image);
        }
    }

    @Test
    void buildStageBuildsOnlyTheProxyWithoutTests() {
        String build = dockerfile.stage("build").last("RUN").arguments();
        assertTrue(build.contains("./mvnw "), build);
        for (String flag : List.of("-DskipTests", "-pl proxy-app", "-am", "package")) {
            assertTrue(build.contains(flag), "missing " + flag + " in: " + build);
        }
    }

    @Test
    void copiesTheJarThatProxyAppsShadeConfigurationProduces() throws IOException {
        ShadedJar jar = ShadedJar.fromPom();
        String[] copy = copyFromBuild();

        assertEquals("/src/" + jar.path(), copy[0]);
        assertEquals(List.of("java", "-jar", copy[1]), entrypoint(),
                "runs the copied jar with no subcommand (the image is the proxy, not the demo)");
        assertEquals("org.kafscale.proxy.app.Main", jar.mainClass());
    }

    @Test
    void prebuiltTargetPutsTheMavenBuildsJarOnTheSameRuntimeAtTheSamePath() throws IOException {
        // scripts/image.sh builds this target: the jar ./mvnw package made, no Maven in the image build
        Dockerfile.Stage prebuilt = dockerfile.stage("prebuilt");
        assertEquals("runtime", prebuilt.parent());
        List<Dockerfile.Instruction> own = prebuilt.instructions().subList(prebuilt.inherited(), prebuilt.instructions().size());
        assertEquals(1, own.size(), "nothing but the jar differs from the default target: " + own);
        String[] words = Arrays.stream(own.get(0).arguments().split("\\s+")).filter(w -> !w.startsWith("--")).toArray(String[]::new);
        assertEquals("COPY", own.get(0).keyword());
        assertEquals(List.of(ShadedJar.fromPom().path(), copyFromBuild()[1]), List.of(words));
        assertEquals(1, runtime.instructions().size() - runtime.inherited(), "the default target adds the jar alone");
    }

    @Test
    void runtimeBaseIsTheBuildArgumentThatTheDebianBaseReplaces() throws IOException {
        // One Dockerfile for both bases: image.sh --debian-base passes its base as RUNTIME_IMAGE.
        assertTrue(Files.readAllLines(RepoPaths.dockerfile()).contains("FROM ${RUNTIME_IMAGE} AS runtime"));
        assertTrue(Files.readString(RepoPaths.root().resolve("scripts/image.sh"))
                .contains("--build-arg \"RUNTIME_IMAGE=$base\""));
    }

    @Test
    void mainClassOfTheJarIsTheProxysEntryPoint() throws Exception {
        Method main = Class.forName(ShadedJar.fromPom().mainClass()).getMethod("main", String[].class);
        assertTrue(Modifier.isStatic(main.getModifiers()));
    }

    @Test
    void runsAsUid10001() {
        String user = runtime.last("USER").arguments();
        assertTrue(user.equals("10001") || user.startsWith("10001:"),
                "numeric uid 10001, so Kubernetes can check runAsNonRoot: " + user);
        assertTrue(runtime.all("RUN").stream().anyMatch(r -> r.arguments().contains("--uid 10001")));
    }

    @Test
    void exposesKafkaHealthAndLfsPorts() {
        Set<String> exposed = runtime.all("EXPOSE").stream()
                .flatMap(e -> Arrays.stream(e.arguments().split("\\s+"))).collect(Collectors.toSet());
        assertEquals(Set.of("9092", "9094", "8080"), exposed);
    }

    @Test
    void listensOnTheExposedPortsThroughTheProxysOwnSettings() {
        Map<String, String> env = env();
        assertEquals(":9092", env.get("KAFSCALE_PROXY_ADDR"));
        assertEquals(":9094", env.get("KAFSCALE_PROXY_HEALTH_ADDR"));
        env.keySet().stream().filter(name -> name.startsWith("KAFSCALE_"))
                .forEach(name -> assertTrue(ConfigKey.byName(name).isPresent(), name + " is no setting of the proxy"));
    }

    @Test
    void jvmSizesItselfFromTheContainerAndWritesOnlyToTheTmpVolume() {
        String options = env().get("JDK_JAVA_OPTIONS");
        assertTrue(options.contains("-XX:MaxRAMPercentage="), options);
        assertTrue(options.contains("-Djava.io.tmpdir=/tmp"), options);
        assertTrue(options.contains("-XX:ErrorFile=/tmp/"), options);
        assertEquals("[\"/tmp\"]", runtime.last("VOLUME").arguments());
    }

    @Test
    void healthcheckRunsTheScriptCopiedIntoTheImage() {
        String healthcheck = runtime.last("HEALTHCHECK").arguments();
        String script = healthcheck.substring(healthcheck.indexOf("CMD") + 3).strip();
        assertTrue(script.contains("/opt/kafscale-proxy/healthcheck.sh"), healthcheck);
        assertTrue(runtime.all("COPY").stream().anyMatch(c -> c.arguments()
                .matches(".*docker/healthcheck\\.sh\\s+/opt/kafscale-proxy/healthcheck\\.sh")));
        assertTrue(Files.isExecutable(RepoPaths.root().resolve("docker/healthcheck.sh")));
    }

    @Test
    void buildContextKeepsWhatTheBuildNeedsAndDropsOutput() throws IOException {
        List<String> ignored = Files.readAllLines(RepoPaths.root().resolve(".dockerignore")).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertTrue(ignored.containsAll(List.of(".git", "**/target")), ignored.toString());
        // ... but the prebuilt target's jar, listed after the pattern it is an exception to
        assertTrue(ignored.indexOf("!" + ShadedJar.fromPom().path()) > ignored.indexOf("**/target"), ignored.toString());
        for (String needed : List.of("mvnw", ".mvn", "pom.xml", "proxy-app", "proxy-core", "docker")) {
            assertFalse(ignored.contains(needed), needed + " is needed by the build");
        }
    }

    private String[] copyFromBuild() {
        List<Dockerfile.Instruction> copies = runtime.all("COPY").stream()
                .filter(c -> c.arguments().contains("--from=build")).toList();
        assertEquals(1, copies.size(), "one artifact from the build stage");
        String[] words = Arrays.stream(copies.get(0).arguments().split("\\s+"))
                .filter(w -> !w.startsWith("--")).toArray(String[]::new);
        assertEquals(2, words.length);
        return words;
    }

    private List<String> entrypoint() {
        try {
            return Arrays.asList(new ObjectMapper().readValue(runtime.last("ENTRYPOINT").arguments(), String[].class));
        } catch (IOException e) {
            throw new AssertionError("ENTRYPOINT must be exec form (a JSON array), so signals reach the JVM", e);
        }
    }

    private Map<String, String> env() {
        return runtime.env();
    }
}
