package org.kafscale.proxy.testkit;

import java.net.URI;
import java.time.Duration;
import java.util.Properties;

import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 endpoint (S3Proxy, in memory or on disk) inside the test JVM.
 *
 * <p>It checks AWS v2/v4 signatures, so a client with wrong credentials fails here as it would
 * against real S3. Buckets vanish with the server.
 */
public final class S3Server implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(S3Server.class);
    private static final String ACCESS_KEY = "access";
    private static final String SECRET_KEY = "secret";
    private static final Duration START_DEADLINE = Duration.ofSeconds(30);

    private final org.gaul.s3proxy.blobstore.BlobStore store;
    private final URI endpoint;
    private S3Proxy proxy;
    private S3Client client;

    private S3Server(S3Proxy proxy, org.gaul.s3proxy.blobstore.BlobStore store) {
        this.proxy = proxy;
        this.store = store;
        this.endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** Starts S3Proxy on a free loopback port and returns once it serves requests. */
    public static S3Server start() {
        return start(BlobStores.create("transient", new Properties()));
    }

    /**
     * Starts S3Proxy with its objects in files under {@code directory} instead of memory, for
     * payloads the test JVM should not hold (a 1 GiB upload).
     */
    public static S3Server startOnDisk(java.nio.file.Path directory) {
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", directory.toString());
        return start(BlobStores.create("filesystem-nio2", properties));
    }

    private static S3Server start(org.gaul.s3proxy.blobstore.BlobStore store) {
        // Port 0: Jetty binds a free port itself, so there is no window for another process to take it.
        S3Server server = new S3Server(serve(store, 0), store);
        LOGGER.info("S3Proxy ready at {}", server.endpoint);
        return server;
    }

    private static S3Proxy serve(org.gaul.s3proxy.blobstore.BlobStore store, int port) {
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        try {
            proxy.start();
            Eventually.await(START_DEADLINE, "S3Proxy to start", () -> "STARTED".equals(proxy.getState()));
        } catch (Exception | AssertionError e) {
            stopQuietly(proxy);
            throw new IllegalStateException("cannot start S3Proxy", e);
        }
        return proxy;
    }

    /** Stops serving (connections are refused, as when S3 is down); the objects stay for {@link #resume}. */
    public synchronized void pause() {
        stopQuietly(proxy);
    }

    /** Serves again on the same port, with the objects it held. */
    public synchronized void resume() {
        proxy = serve(store, endpoint.getPort());
    }

    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return ACCESS_KEY;
    }

    public String secretKey() {
        return SECRET_KEY;
    }

    /** A shared sync client (path style, us-east-1), created on first use and closed with the server. */
    public synchronized S3Client client() {
        if (client == null) {
            client = S3Client.builder()
                    .endpointOverride(endpoint)
                    .region(Region.US_EAST_1)
                    .forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                    .build();
        }
        return client;
    }

    public void createBucket(String bucket) {
        client().createBucket(b -> b.bucket(bucket));
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
        stopQuietly(proxy);
    }

    private static void stopQuietly(S3Proxy proxy) {
        try {
            proxy.stop();
        } catch (Exception e) {
            LOGGER.warn("S3Proxy did not stop cleanly", e);
        }
    }
}
