package org.kafscale.proxy.lfs.uploads;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.kafscale.proxy.core.backend.BackendConnector;
import org.kafscale.proxy.core.backend.KafkaRequestClient;
import org.kafscale.proxy.core.server.NettyTransport;
import org.kafscale.proxy.core.topology.BrokerEndpoint;
import org.kafscale.proxy.discovery.kafka.KafkaClusterTopology;
import org.kafscale.proxy.lfs.LfsModule;
import org.kafscale.proxy.lfs.LfsSettings;
import org.kafscale.proxy.lfs.checksum.ChecksumAlg;
import org.kafscale.proxy.lfs.http.HttpSettings;
import org.kafscale.proxy.lfs.http.LfsRouteFactory;
import org.kafscale.proxy.lfs.publish.PublishSettings;
import org.kafscale.proxy.lfs.s3.S3Settings;
import org.kafscale.proxy.lfs.tracker.TrackerSettings;
import org.kafscale.proxy.testkit.EtcdProcess;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.S3Server;

import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * Real Kafka (one broker), a real S3Proxy and a real etcd for the multipart tests, and LFS
 * modules ("proxy replicas") started on them. Each replica has its own topology and broker
 * client, as separate processes would; they share only etcd and the bucket.
 */
final class UploadsTestbed implements AutoCloseable {

    static final String BUCKET = "lfs-uploads-test";
    static final String NAMESPACE = "default";
    static final int MIB = 1024 * 1024;

    /** Which shared store the replicas keep sessions in. */
    enum StoreKind { ETCD, BUCKET }

    final KafkaCluster kafka;
    final S3Server s3;
    final EtcdProcess etcd;
    final Client etcdClient;
    private final EventLoopGroup workers = NettyTransport.newEventLoopGroup(2, "uploads-test");
    private final List<AutoCloseable> closeables = new ArrayList<>();

    private UploadsTestbed(KafkaCluster kafka, S3Server s3, EtcdProcess etcd) {
        this.kafka = kafka;
        this.s3 = s3;
        this.etcd = etcd;
        this.etcdClient = Client.builder().endpoints(etcd.endpoint()).build();
    }

    static UploadsTestbed start(String... topics) {
        KafkaCluster kafka = KafkaCluster.start(1);
        S3Server s3 = S3Server.start();
        s3.createBucket(BUCKET);
        EtcdProcess etcd = EtcdProcess.startNew();
        for (String topic : topics) {
            kafka.createTopic(topic, 2);
        }
        return new UploadsTestbed(kafka, s3, etcd);
    }

    /** A replica: an LFS module serving {@code routes}, closed with the testbed. */
    LfsModule startReplica(Duration sessionTtl, List<LfsRouteFactory> routes) throws Exception {
        KafkaRequestClient client = new KafkaRequestClient(workers, new BackendConnector(16 * MIB, Duration.ofSeconds(5)),
                "uploads-test", Duration.ofSeconds(20));
        List<BrokerEndpoint> bootstrap = kafka.brokerIds().stream().map(id -> {
            String[] hostPort = kafka.brokerAddress(id).split(":");
            return new BrokerEndpoint(-1, hostPort[0], Integer.parseInt(hostPort[1]), null);
        }).toList();
        KafkaClusterTopology topology = new KafkaClusterTopology(bootstrap, client, Duration.ofSeconds(30));
        topology.start().get(30, TimeUnit.SECONDS);
        LfsModule module = LfsModule.start(settings(sessionTtl), topology, topology.gate(),
                new SimpleMeterRegistry(), routes);
        closeables.add(module);
        closeables.add(topology);
        closeables.add(client::close);
        return module;
    }

    /** A replica's upload service, without HTTP, on the chosen store. */
    MultipartUploads uploads(LfsModule replica, StoreKind kind, Clock clock) {
        Optional<Client> shared = kind == StoreKind.ETCD ? Optional.of(etcdClient) : Optional.empty();
        UploadRoutes routes = new UploadRoutes(shared, clock);
        closeables.add(routes);
        return routes.uploads(replica.context());
    }

    /** A store on the same etcd or bucket as the replicas', to look at sessions directly. */
    UploadSessionStore store(StoreKind kind, LfsModule replica) {
        return kind == StoreKind.ETCD
                ? new EtcdUploadSessionStore(etcdClient, Duration.ofMinutes(10), Clock.systemUTC())
                : new S3UploadSessionStore(replica.context().s3(), BUCKET, NAMESPACE);
    }

    LfsSettings settings(Duration sessionTtl) {
        S3Settings s3Settings = new S3Settings(BUCKET, "us-east-1", Optional.of(s3.endpoint()), Optional.empty(),
                s3.accessKey(), s3.secretKey(), "", true, false, Duration.ofSeconds(30));
        HttpSettings defaults = HttpSettings.defaults(new InetSocketAddress("127.0.0.1", 0));
        // Idle keep-alive connections of the test's HTTP client would hold every shutdown for the full default.
        HttpSettings http = new HttpSettings(defaults.address(), "", defaults.readIdleTimeout(),
                defaults.writeIdleTimeout(), defaults.idleTimeout(), defaults.headerTimeout(), defaults.maxHeaderBytes(),
                Duration.ofMillis(200), Optional.empty());
        return new LfsSettings(s3Settings, http,
                new PublishSettings(3, Duration.ofMillis(100), Duration.ofSeconds(15), PublishSettings.DEFAULT_MAX_BROKERS),
                TrackerSettings.disabled(), NAMESPACE, "uploads-test", LfsSettings.DEFAULT_MAX_BLOB_SIZE,
                LfsSettings.MIN_CHUNK_SIZE, ChecksumAlg.SHA256, 249, Duration.ofSeconds(120), false, sessionTtl,
                Duration.ofSeconds(5), Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** The S3 multipart uploads still open under {@code key}. */
    List<String> openUploads(String key) {
        return s3.client().listMultipartUploads(b -> b.bucket(BUCKET).prefix(key)).uploads().stream()
                .map(MultipartUpload::uploadId).toList();
    }

    boolean objectExists(String key) {
        return s3.client().listObjectsV2(b -> b.bucket(BUCKET).prefix(key)).contents().stream()
                .anyMatch(o -> o.key().equals(key));
    }

    byte[] object(String key) {
        return s3.client().getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
    }

    /** Every record value of {@code topic} up to its current end, read by a plain consumer. */
    List<byte[]> recordValues(String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        List<byte[]> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            Eventually.await(Duration.ofSeconds(30), "records of " + topic + " up to " + ends, () -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(record.value());
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
        }
        return values;
    }

    static byte[] payload(int size, long seed) {
        byte[] bytes = new byte[size];
        new java.util.Random(seed).nextBytes(bytes);
        return bytes;
    }

    static String sha256(byte[]... pieces) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (byte[] piece : pieces) {
            digest.update(piece);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    @Override
    public void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        etcdClient.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        etcd.close();
        s3.close();
        kafka.close();
    }
}
