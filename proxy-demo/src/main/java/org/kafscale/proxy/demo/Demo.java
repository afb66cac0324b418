package org.kafscale.proxy.demo;

import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import java.util.Map;
import org.kafscale.proxy.app.ProxyRuntime;
import org.kafscale.proxy.app.config.CommandLine;
import org.kafscale.proxy.app.config.ConfigKey;
import org.kafscale.proxy.app.config.ConfigException;
import org.kafscale.proxy.app.config.ConfigSources;
import org.kafscale.proxy.app.config.ProxyConfig;

/**
 * The demo: an embedded one-broker Kafka and the proxy in front of it on localhost:9092, with LFS
 * on (the HTTP API on localhost:8080, objects in an embedded S3 on a local folder), and nothing
 * else to set up. Prints what to run next and serves until interrupted. Takes the proxy's
 * own {@code --config} and {@code --KEY=value} arguments.
 */
public final class Demo implements AutoCloseable {
    static final int BROKER_PORT = 19092;
    static final int S3_PORT = 19000;
    static final String TOPIC = "demo";
    static final String LFS_TOPIC = "demo-lfs";
    static final String LFS_BUCKET = "kafscale-demo-payloads";

    public static void main(String[] args) throws Exception {
        Map<String, String> settings;
        try {
            settings = ConfigSources.resolve(CommandLine.parse(args), System.getenv());
            run(settings);
        } catch (ConfigException | IllegalArgumentException e) {
            System.err.println("Configuration error: " + e.getMessage());
            System.exit(1);
        }
    }

    static void run(Map<String, String> env) throws Exception {
        Demo demo = start(env, BROKER_PORT, S3_PORT);
        Runtime.getRuntime().addShutdownHook(new Thread(demo::close, "demo-shutdown"));
        System.out.println(demo.instructions());
        Thread.currentThread().join();
    }

    private final EmbeddedKafkaBroker broker;
    private final EmbeddedS3 s3;
    private final ProxyRuntime proxy;

    private Demo(EmbeddedKafkaBroker broker, EmbeddedS3 s3, ProxyRuntime proxy) {
        this.broker = broker;
        this.s3 = s3;
        this.proxy = proxy;
    }

    /**
     * Starts the broker, the S3 endpoint and the proxy. The proxy's addresses default to the
     * well-known demo ports and can be overridden by the settings, like any other setting.
     */
    static Demo start(Map<String, String> env, int brokerPort, int s3Port) throws Exception {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(brokerPort);
        createTopics(broker.bootstrap());
        EmbeddedS3 s3 = EmbeddedS3.start(s3Port, LFS_BUCKET);
        Map<String, String> settings = new HashMap<>(env);
        settings.putIfAbsent(ProxyConfig.ADDR, "127.0.0.1:9092");
        settings.putIfAbsent(ProxyConfig.ADVERTISED_HOST, "localhost");
        settings.putIfAbsent(ProxyConfig.HEALTH_ADDR, "127.0.0.1:9094");
        settings.put(ProxyConfig.BACKENDS, broker.bootstrap());
        settings.putIfAbsent(ConfigKey.LFS_ENABLED.envName(), "true");
        settings.putIfAbsent(ConfigKey.LFS_HTTP_ADDR.envName(), "127.0.0.1:8080");
        settings.putIfAbsent(ConfigKey.LFS_S3_BUCKET.envName(), LFS_BUCKET);
        settings.putIfAbsent(ConfigKey.LFS_S3_REGION.envName(), "us-east-1");
        settings.putIfAbsent(ConfigKey.LFS_S3_ENDPOINT.envName(), s3.endpoint());
        settings.putIfAbsent(ConfigKey.LFS_S3_ACCESS_KEY.envName(), EmbeddedS3.ACCESS_KEY);
        settings.putIfAbsent(ConfigKey.LFS_S3_SECRET_KEY.envName(), EmbeddedS3.SECRET_KEY);
        return new Demo(broker, s3, ProxyRuntime.start(ProxyConfig.from(settings)));
    }

    ProxyRuntime proxy() {
        return proxy;
    }

    public void close() {
        proxy.close();
        try {
            s3.close();
        } catch (Exception e) {
            System.err.println("stopping the demo's S3: " + e);
        }
        broker.close();
    }

    private static void createTopics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1), new NewTopic(LFS_TOPIC, 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    /** What is running where, and shell lines to try it with. */
    String instructions() {
        String bootstrap = "localhost:" + proxy.kafkaAddress().getPort();
        String out = System.lineSeparator();
        StringBuilder text = new StringBuilder(out).append("KafScale proxy demo is up.").append(out)
                .append("  Kafka broker (embedded): ").append(broker.bootstrap())
                .append("   clients never need this address").append(out)
                .append("  Proxy:                   ").append(bootstrap).append(out);
        proxy.healthAddress().ifPresent(h -> text.append("  Health:                  http://127.0.0.1:")
                .append(h.getPort()).append("/readyz").append(out));
        proxy.lfsAddress().ifPresent(l -> text.append("  LFS HTTP API:            http://127.0.0.1:").append(l.getPort())
                .append("   (Swagger UI at /swagger/)").append(out)
                .append("  S3 (embedded):           ").append(s3.endpoint()).append("   objects in ")
                .append(s3.folder()).append(out));
        text.append(out).append("Try it (Debian: apt-get install kcat curl jq):").append(out)
                .append("  kcat -b ").append(bootstrap).append(" -L").append(out)
                .append("  printf 'k1:hello\\nk2:world\\n' | kcat -b ").append(bootstrap).append(" -P -t ").append(TOPIC)
                .append(" -K:").append(out)
                .append("  kcat -b ").append(bootstrap).append(" -C -t ").append(TOPIC)
                .append(" -o beginning -e -f '%p %o %k=%s\\n'").append(out)
                .append("  kcat -b ").append(bootstrap).append(" -G demo-group ").append(TOPIC).append(out);
        proxy.lfsAddress().ifPresent(l -> {
            String lfs = "http://127.0.0.1:" + l.getPort();
            text.append(out).append("Large payloads (LFS): the file goes to S3, an envelope record to Kafka:").append(out)
                    .append("  head -c 8M /dev/urandom > big.bin").append(out)
                    .append("  curl -sS -X POST ").append(lfs).append("/lfs/produce -H 'X-Kafka-Topic: ").append(LFS_TOPIC)
                    .append("' -H 'Content-Type: application/octet-stream' --data-binary @big.bin | tee envelope.json").append(out)
                    .append("  kcat -b ").append(bootstrap).append(" -C -t ").append(LFS_TOPIC).append(" -o beginning -e")
                    .append(out)
                    .append("  jq -c '{bucket, key, integrity: {sha256, size}}' envelope.json \\").append(out)
                    .append("    | curl -sS -X POST ").append(lfs).append("/lfs/download -d @- -o copy.bin")
                    .append(" && cmp big.bin copy.bin && echo same bytes").append(out);
        });
        text.append(out).append("Press Ctrl+C to stop.");
        return text.toString();
    }
}
