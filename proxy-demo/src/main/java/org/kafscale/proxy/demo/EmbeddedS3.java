package org.kafscale.proxy.demo;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;

/**
 * An S3 endpoint for the demo's LFS: S3Proxy in this JVM, keeping objects as files in a local
 * folder (which is kept after the demo stops, so the payloads can be looked at).
 */
final class EmbeddedS3 implements AutoCloseable {
    static final String ACCESS_KEY = "demo";
    static final String SECRET_KEY = "demo-secret";

    private final S3Proxy proxy;
    private final Path folder;

    private EmbeddedS3(S3Proxy proxy, Path folder) {
        this.proxy = proxy;
        this.folder = folder;
    }

    static EmbeddedS3 start(int port, String bucket) throws Exception {
        Path folder = Files.createTempDirectory("kafscale-demo-s3");
        // The filesystem store keeps each bucket as a folder; creating it creates the bucket.
        Files.createDirectories(folder.resolve(bucket));
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", folder.toString());
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(BlobStores.create("filesystem-nio2", properties))
                .endpoint(URI.create("http://127.0.0.1:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                proxy.stop();
                throw new IllegalStateException("the demo's S3 did not start on port " + port);
            }
            Thread.sleep(10);
        }
        return new EmbeddedS3(proxy, folder);
    }

    String endpoint() {
        return "http://127.0.0.1:" + proxy.getPort();
    }

    Path folder() {
        return folder;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
