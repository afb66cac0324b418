package org.kafscale.proxy.lfs;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.discovery.TopologySource;
import org.kafscale.proxy.discovery.kafka.KafkaClusterTopology;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.HttpSettings;
import org.kafscale.proxy.lfs.http.LfsRouteFactory;
import org.kafscale.proxy.lfs.publish.PublishSettings;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.lfs.tracker.TrackerSettings;
import org.kafscale.proxy.testkit.S3Server;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An LFS module in the test JVM on a free loopback port, in front of a real S3 (S3Proxy) and a
 * real Kafka cluster or KafScale's etcd, with an HTTP client to call it.
 */
public final class LfsTestBed implements AutoCloseable {
    public static final String BUCKET = "lfs-test";
    public static final String NAMESPACE = "default";

    private final EventLoopGroup workers;
    private final KafkaRequestClient kafka;
    private final TopologySource topology;
    private final boolean ownsTopology;
    private final LfsModule module;
    private final S3Server s3;
    private final SimpleMeterRegistry registry;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private LfsTestBed(EventLoopGroup workers, KafkaRequestClient kafka, TopologySource topology, boolean ownsTopology,
                       LfsModule module, S3Server s3, SimpleMeterRegistry registry) {
        this.workers = workers;
        this.kafka = kafka;
        this.topology = topology;
        this.ownsTopology = ownsTopology;
        this.module = module;
        this.s3 = s3;
        this.registry = registry;
    }

    /** Settings for a test: the bucket on {@code s3}, a free port, tracker off, fast broker retries. */
    public static LfsSettings settings(S3Server s3) {
        S3Settings s3Settings = new S3Settings(BUCKET, "us-east-1", Optional.of(s3.endpoint()), Optional.empty(),
                s3.accessKey(), s3.secretKey(), "", true, false, Duration.ofSeconds(30));
        HttpSettings http = HttpSettings.defaults(new InetSocketAddress("127.0.0.1", 0));
        Path temp;
        try {
            temp = Files.createTempDirectory("lfs-verify");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return new LfsSettings(s3Settings, http, new PublishSettings(3, Duration.ofMillis(100), Duration.ofSeconds(15),
                PublishSettings.DEFAULT_MAX_BROKERS), TrackerSettings.disabled(), NAMESPACE, "lfs-test-proxy",
                LfsSettings.DEFAULT_MAX_BLOB_SIZE, LfsSettings.MIN_CHUNK_SIZE, ChecksumAlg.SHA256, 249,
                Duration.ofSeconds(120), false, Duration.ofHours(1), Duration.ofSeconds(2), temp);
    }

    /** In front of a plain Kafka cluster, its topology read from {@code bootstrap}. */
    public static LfsTestBed onKafka(String bootstrap, S3Server s3, UnaryOperator<LfsSettings> tweak) {
        EventLoopGroup workers = NettyTransport.newEventLoopGroup(2, "lfs-test");
        KafkaRequestClient kafka = new KafkaRequestClient(workers, new BackendConnector(16 << 20,
                Duration.ofSeconds(2)), "lfs-test-topology", Duration.ofSeconds(10));
        List<BrokerEndpoint> brokers = java.util.Arrays.stream(bootstrap.split(",")).map(a -> {
            int colon = a.lastIndexOf(':');
            return new BrokerEndpoint(-1, a.substring(0, colon), Integer.parseInt(a.substring(colon + 1)), null);
        }).toList();
        TopologySource topology = new KafkaClusterTopology(brokers, kafka, Duration.ofSeconds(1));
        topology.start().join();
        return start(workers, kafka, topology, true, s3, tweak, List.of());
    }

    /** In front of a topology the test built (etcd). */
    public static LfsTestBed onTopology(TopologySource topology, S3Server s3, UnaryOperator<LfsSettings> tweak) {
        EventLoopGroup workers = NettyTransport.newEventLoopGroup(2, "lfs-test");
        return start(workers, null, topology, false, s3, tweak, List.of());
    }

    private static LfsTestBed start(EventLoopGroup workers, KafkaRequestClient kafka, TopologySource topology,
                                    boolean ownsTopology, S3Server s3, UnaryOperator<LfsSettings> tweak,
                                    List<LfsRouteFactory> extra) {
        ensureBucket(s3);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try {
            LfsModule module = LfsModule.start(tweak.apply(settings(s3)), topology, topology.gate(), registry,
                    extra);
            return new LfsTestBed(workers, kafka, topology, ownsTopology, module, s3, registry);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void ensureBucket(S3Server s3) {
        if (s3.client().listBuckets().buckets().stream().noneMatch(b -> b.name().equals(BUCKET))) {
            s3.createBucket(BUCKET);
        }
    }

    public LfsModule module() {
        return module;
    }

    public SimpleMeterRegistry registry() {
        return registry;
    }

    public double orphans() {
        return module.context().metrics().orphanCount();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + module.httpAddress().getPort() + path);
    }

    public HttpResponse<String> send(HttpRequest request) {
        return send(request, HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<byte[]> sendForBytes(HttpRequest request) {
        return send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return http.send(request, handler);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts a produce whose body pauses after {@code body}'s first part, and returns once the
     * upload is under way: the proxy connected to a broker and is streaming the body into an S3 PUT
     * (it reads a declared body only as fast as the S3 request takes it, so the client getting past
     * the first part means the PUT is sending).
     */
    public CompletableFuture<HttpResponse<String>> startPausedProduce(HttpRequest.Builder request, GatedBody body) {
        CompletableFuture<HttpResponse<String>> response = http.sendAsync(request.POST(body.publisher()).build(),
                HttpResponse.BodyHandlers.ofString());
        body.awaitFirstPartConsumed();
        return response;
    }

    /** A produce request for {@code topic} with {@code body}, before extra headers. */
    public HttpRequest.Builder produce(String topic, byte[] body) {
        return HttpRequest.newBuilder(uri("/lfs/produce")).header("X-Kafka-Topic", topic)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    }

    /** A stream-mode download request with an integrity claim. */
    public HttpRequest download(String key, String sha256, long size) {
        String json = "{\"bucket\":\"" + BUCKET + "\",\"key\":\"" + key + "\",\"mode\":\"stream\",\"integrity\":"
                + "{\"sha256\":\"" + sha256 + "\",\"checksum_alg\":\"sha256\",\"size\":" + size + "}}";
        return HttpRequest.newBuilder(uri("/lfs/download")).POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }

    /** A loopback port where nothing listens (bound, then released). */
    public static int deadPort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every object key in the bucket. */
    public List<String> objectKeys() {
        return s3.client().listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents().stream().map(S3Object::key)
                .toList();
    }

    /** Every unfinished multipart upload in the bucket. */
    public int openMultipartUploads() {
        return s3.client().listMultipartUploads(b -> b.bucket(BUCKET)).uploads().size();
    }

    @Override
    public void close() {
        module.close();
        if (ownsTopology) {
            topology.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
