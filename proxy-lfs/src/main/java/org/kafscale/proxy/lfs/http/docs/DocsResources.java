package org.kafscale.proxy.lfs.http.docs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classpath files read once, off the event loop, then served from memory. Only files that
 * exist are cached: the OpenAPI document and the files the webjar ships, listed once; a name
 * the webjar does not have is answered from that list, so client-chosen names cost nothing.
 */
final class DocsResources {
    private static final Logger LOGGER = LoggerFactory.getLogger(DocsResources.class);
    private static final String WEBJAR_POM = "META-INF/maven/org.webjars/swagger-ui/pom.properties";
    private static final String WEBJAR_DIR = "META-INF/resources/webjars/swagger-ui/";

    private final Executor blocking;
    private final Map<String, CompletableFuture<Optional<byte[]>>> loaded = new ConcurrentHashMap<>();
    private final CompletableFuture<Map<String, String>> webjarFiles;

    DocsResources(Executor blocking) {
        this.blocking = blocking;
        this.webjarFiles = CompletableFuture.supplyAsync(DocsResources::listWebjar, blocking);
    }

    CompletableFuture<Optional<byte[]>> load(String resource) {
        return loaded.computeIfAbsent(resource, r -> CompletableFuture.supplyAsync(() -> read(r), blocking));
    }

    CompletableFuture<Optional<byte[]>> webjarFile(String file) {
        return webjarFiles.thenCompose(files -> {
            String resource = files.get(file);
            return resource == null ? CompletableFuture.completedFuture(Optional.<byte[]>empty()) : load(resource);
        });
    }

    /** File name to resource path for every file at the top of the webjar's directory. */
    private static Map<String, String> listWebjar() {
        ClassLoader loader = DocsResources.class.getClassLoader();
        Optional<byte[]> pom = read(WEBJAR_POM);
        URL pomUrl = loader.getResource(WEBJAR_POM);
        if (pom.isEmpty() || pomUrl == null || !"jar".equals(pomUrl.getProtocol())) {
            LOGGER.warn("the swagger-ui webjar is not on the class path as a jar; /swagger/ui serves nothing");
            return Map.of();
        }
        Properties properties = new Properties();
        try {
            properties.load(new ByteArrayInputStream(pom.get()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String directory = WEBJAR_DIR + properties.getProperty("version") + "/";
        Map<String, String> files = new HashMap<>();
        try {
            JarURLConnection connection = (JarURLConnection) pomUrl.openConnection();
            connection.setUseCaches(false);
            try (JarFile jar = connection.getJarFile()) {
                jar.stream().map(JarEntry::getName)
                        .filter(name -> name.startsWith(directory) && name.length() > directory.length())
                        .map(name -> name.substring(directory.length()))
                        .filter(name -> !name.contains("/"))
                        .forEach(name -> files.put(name, directory + name));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.copyOf(files);
    }

    /** How many resources are held, for tests: only files that exist. */
    int cachedCount() {
        return loaded.size();
    }

    private static Optional<byte[]> read(String resource) {
        try (InputStream in = DocsResources.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
