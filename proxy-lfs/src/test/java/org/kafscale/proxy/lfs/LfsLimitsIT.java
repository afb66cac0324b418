package org.kafscale.proxy.lfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.lfs.envelope.Envelope;
import org.kafscale.proxy.lfs.envelope.EnvelopeCodec;
import org.kafscale.proxy.lfs.limits.LfsLimits;
import org.kafscale.proxy.testkit.Eventually;
import org.kafscale.proxy.testkit.KafkaCluster;
import org.kafscale.proxy.testkit.S3Server;

/**
 * The LFS bounds under slow and hostile clients (security review H5, M4), driven past with real
 * HTTP against real Kafka and S3Proxy: each bound holds, and a well-behaved client keeps working.
 */
class LfsLimitsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TOPIC = "limits";
    private static final int TRICKLE_LENGTH = 1024 * 1024;
    /** The address the tests' load balancer connects from, when there is one. */
    private static final String LOAD_BALANCER = "127.0.0.1";

    private static KafkaCluster cluster;
    private static S3Server s3;
    private static final List<Socket> sockets = new ArrayList<>();

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.start(1);
        s3 = S3Server.start();
        cluster.createTopic(TOPIC, 1);
    }

    @AfterAll
    static void stop() throws IOException {
        closeSockets();
        s3.close();
        cluster.close();
    }

    /** Before a test bed closes: its shutdown would otherwise wait for these connections. */
    private static void closeSockets() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        sockets.clear();
    }

    /**
     * A test bed behind a load balancer at 127.0.0.1 (every test client's address), which it
     * trusts: the tests name their clients by {@code X-Forwarded-For}.
     */
    private static LfsTestBed bed(LfsLimits limits) {
        return bed(s -> SettingsEdits.trustedProxies(s, LOAD_BALANCER), limits);
    }

    private static LfsTestBed bed(UnaryOperator<LfsSettings> tweak, LfsLimits limits) {
        return LfsTestBed.onKafka(cluster.bootstrapServers(), s3, s -> tweak.apply(s).withLimits(limits));
    }

    private static LfsLimits limits(int uploads, int perClient, long minRate, int downloads, long tempBytes) {
        return new LfsLimits(2, uploads, perClient, minRate, Duration.ofSeconds(1), downloads, tempBytes);
    }

    /**
     * The review's H5 probe, one client's worth: a produce that declares 1 MiB, sends its head and
     * 1 KiB, then trickles (here: stalls). It holds an upload permit (and an S3 connection).
     */
    private static Socket trickle(LfsTestBed lfs, String client) throws IOException {
        Socket socket = connect(lfs, "127.0.0.1");
        writeProduce(socket, "X-Forwarded-For: " + client + "\r\n", TRICKLE_LENGTH, new byte[1024]);
        return socket;
    }

    /** A connection to the LFS listener from {@code fromAddress}: the client address the proxy sees. */
    private static Socket connect(LfsTestBed lfs, String fromAddress) throws IOException {
        Socket socket = new Socket();
        sockets.add(socket);
        socket.bind(new InetSocketAddress(fromAddress, 0));
        socket.connect(lfs.module().httpAddress());
        socket.setSoTimeout((int) DEADLINE.toMillis());
        return socket;
    }

    /** A produce declaring {@code length} body bytes, of which it sends {@code sent}. */
    private static void writeProduce(Socket socket, String headers, int length, byte[] sent) throws IOException {
        String head = "POST /lfs/produce HTTP/1.1\r\nHost: x\r\n" + headers + "X-Kafka-Topic: " + TOPIC
                + "\r\nContent-Length: " + length + "\r\n\r\n";
        socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(sent);
        socket.getOutputStream().flush();
    }

    private static HttpResponse<String> produce(LfsTestBed lfs, String client, byte[] body) {
        return lfs.send(lfs.produce(TOPIC, body).header("X-Forwarded-For", client).build());
    }

    private static double gauge(LfsTestBed lfs, String name) {
        return lfs.registry().get(name).gauge().value();
    }

    private static double refused(LfsTestBed lfs, String kind, String limit) {
        return lfs.registry().get("kafscale_lfs_proxy_" + kind + "_refused").tag("limit", limit).counter().count();
    }

    private static String code(String body) throws IOException {
        return JSON.readTree(body).path("code").asText();
    }

    @Test
    void tricklingUploadsPastTheirBoundsGetBusyWhileOtherClientsAndTheHealthCheckKeepWorking() throws Exception {
        try (LfsTestBed lfs = bed(limits(3, 2, 0, 4, 1L << 30))) {
            // Given: one client holds its two uploads with trickling bodies
            List<Socket> attacker = List.of(trickle(lfs, "10.0.0.1"), trickle(lfs, "10.0.0.1"));
            Eventually.await(DEADLINE, "both trickling uploads to be admitted",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 2);

            // When: it starts a third; another client produces
            HttpResponse<String> third = produce(lfs, "10.0.0.1", new byte[1000]);
            HttpResponse<String> other = produce(lfs, "10.0.0.2", new byte[1000]);

            // Then: the third is refused busy, the other client's produce is stored, and the session
            // store's connections (a pool of their own) still answer
            assertEquals(503, third.statusCode(), third.body());
            assertEquals("busy", code(third.body()));
            assertEquals(1, refused(lfs, "uploads", "per_client"));
            assertEquals(200, other.statusCode(), other.body());
            lfs.module().context().controlS3().headBucket(b -> b.bucket(LfsTestBed.BUCKET)).get();
            assertTrue(lfs.module().context().s3Health().healthy());

            // And when a third client fills the total, a fourth is refused until the trickles end
            trickle(lfs, "10.0.0.3");
            Eventually.await(DEADLINE, "the total to be reached",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 3);
            HttpResponse<String> fourth = produce(lfs, "10.0.0.4", new byte[1000]);
            assertEquals(503, fourth.statusCode(), fourth.body());
            assertEquals(1, refused(lfs, "uploads", "total"));
            for (Socket socket : attacker) {
                socket.close();
            }
            Eventually.await(DEADLINE, "the closed uploads to let go of their permits",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 1);
            HttpResponse<String> after = produce(lfs, "10.0.0.4", new byte[1000]);
            assertEquals(200, after.statusCode(), after.body());
            closeSockets();
        }
    }

    @Test
    void anUploadBelowTheMinimumRateIsStoppedWith408AndLetsGoOfItsPermit() throws Exception {
        try (LfsTestBed lfs = bed(limits(8, 8, 1024 * 1024, 4, 1L << 30))) {
            // Given: an upload that sends 1 KiB of its declared 1 MiB and then nothing
            int objectsBefore = lfs.objectKeys().size();
            Socket slow = trickle(lfs, "10.0.1.1");

            // When
            String answer = readAnswer(slow.getInputStream());

            // Then: it is answered 408 upload_too_slow (not left to the idle timeout), holds nothing,
            // and a well-behaved upload is stored
            assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
            assertEquals("upload_too_slow", code(answer.substring(answer.indexOf("\r\n\r\n") + 4)));
            Eventually.await(DEADLINE, "the slow upload to let go of its permit",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 0);
            HttpResponse<String> fast = produce(lfs, "10.0.1.2", new byte[1000]);
            assertEquals(200, fast.statusCode(), fast.body());
            assertEquals(objectsBefore + 1, lfs.objectKeys().size());
            closeSockets();
        }
    }

    /** Issue 30 item 4: the per-address bound at the total, with the addresses the proxy really sees. */
    @Test
    void uploadsTricklingFromOneAddressCannotStarveAnotherAndAreCutByTheMinimumRate() throws Exception {
        // Given: one address may take all four upload permits, and a body must arrive at 1 MiB/s over 5 s
        LfsLimits limits = new LfsLimits(2, 4, 4, 1024 * 1024, Duration.ofSeconds(5), 4, 1L << 30);
        try (LfsTestBed lfs = bed(limits)) {
            // When: 127.0.0.1 starts as many trickling uploads as it may, and one more
            List<Socket> trickles = new ArrayList<>();
            int admittable = limits.maxUploads() - limits.uploadsReservedForNewClients();
            for (int i = 0; i < admittable; i++) {
                trickles.add(trickleFrom(lfs, "127.0.0.1"));
            }
            Eventually.await(DEADLINE, "the trickling uploads to be admitted",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == admittable);
            String beyond = readAnswer(trickleFrom(lfs, "127.0.0.1").getInputStream());

            // Then: that one is refused busy, since the last permit is kept for an address holding none
            assertTrue(beyond.startsWith("HTTP/1.1 503"), beyond);
            assertEquals("busy", code(body(beyond)));
            assertEquals(1, refused(lfs, "uploads", "reserved"));

            // And when 127.0.0.2 uploads meanwhile, it is stored at once: while the trickles still hold their permits
            Socket other = connect(lfs, "127.0.0.2");
            writeProduce(other, "", 1000, new byte[1000]);
            String stored = readAnswer(other.getInputStream());
            assertTrue(stored.startsWith("HTTP/1.1 200"), stored);
            assertTrue(gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") >= admittable,
                    "the trickling uploads were cut before the other address's upload was answered");

            // And the trickling uploads are cut by the minimum rate, letting go of every permit
            for (Socket trickle : trickles) {
                String answer = readAnswer(trickle.getInputStream());
                assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
                assertEquals("upload_too_slow", code(body(answer)));
            }
            Eventually.await(DEADLINE, "the cut uploads to let go of their permits",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 0);
            closeSockets();
        }
    }

    /** A produce from {@code fromAddress} (no forwarding header) declaring 1 MiB, sending 1 KiB, then stalling. */
    private static Socket trickleFrom(LfsTestBed lfs, String fromAddress) throws IOException {
        return trickleFrom(lfs, fromAddress, "");
    }

    /** As above, with {@code headers} (each line ending in CRLF). */
    private static Socket trickleFrom(LfsTestBed lfs, String fromAddress, String headers) throws IOException {
        Socket socket = connect(lfs, fromAddress);
        writeProduce(socket, headers, TRICKLE_LENGTH, new byte[1024]);
        return socket;
    }

    private static String body(String answer) {
        return answer.substring(answer.indexOf("\r\n\r\n") + 4);
    }

    @Test
    void onlyATrustedProxyMayNameTheClientByForwardedFor() throws Exception {
        // Given: two uploads per client address, and only the load balancer at 127.0.0.1 trusted
        try (LfsTestBed lfs = bed(limits(8, 2, 0, 4, 1L << 30))) {
            // When: a client at 127.0.0.2, not a trusted proxy, holds its two uploads and then starts a
            // third, each naming another client by X-Forwarded-For
            trickleFrom(lfs, "127.0.0.2", "X-Forwarded-For: 10.9.0.1\r\n");
            trickleFrom(lfs, "127.0.0.2", "X-Forwarded-For: 10.9.0.2\r\n");
            Eventually.await(DEADLINE, "both trickling uploads to be admitted",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 2);
            Socket third = connect(lfs, "127.0.0.2");
            writeProduce(third, "X-Forwarded-For: 10.9.0.3\r\n", 1000, new byte[1000]);

            // Then: the header is ignored, the three count as 127.0.0.2's, and the third is refused
            String refusedAnswer = readAnswer(third.getInputStream());
            assertTrue(refusedAnswer.startsWith("HTTP/1.1 503"), refusedAnswer);
            assertEquals("busy", code(body(refusedAnswer)));
            assertEquals(1, refused(lfs, "uploads", "per_client"));

            // And the trusted load balancer's uploads for two other clients are stored meanwhile
            assertEquals(200, produce(lfs, "10.9.0.1", new byte[1000]).statusCode());
            assertEquals(200, produce(lfs, "10.9.0.2", new byte[1000]).statusCode());
            closeSockets();
        }
    }

    @Test
    void withoutTrustedProxiesEveryPeerIsItsOwnClient() throws Exception {
        // Given: the default, no trusted proxy, and one upload per client address
        try (LfsTestBed lfs = bed(UnaryOperator.identity(), limits(8, 1, 0, 4, 1L << 30))) {
            // When: 127.0.0.1 holds its upload, then sends another naming a different client
            trickle(lfs, "10.9.1.1");
            Eventually.await(DEADLINE, "the trickling upload to be admitted",
                    () -> gauge(lfs, "kafscale_lfs_proxy_uploads_in_flight") == 1);
            HttpResponse<String> spoofed = produce(lfs, "10.9.1.2", new byte[1000]);

            // Then: it is 127.0.0.1's second, and refused
            assertEquals(503, spoofed.statusCode(), spoofed.body());
            assertEquals(1, refused(lfs, "uploads", "per_client"));
            closeSockets();
        }
    }

    @Test
    void aDownloadWhoseClaimedSizeIsNotTheObjectsIsRefusedBeforeAnyCopy() throws Exception {
        Path temp = Files.createTempDirectory("lfs-limits-verify");
        try (LfsTestBed lfs = bed(s -> SettingsEdits.tempDir(s, temp), limits(8, 8, 0, 4, 1L << 30))) {
            // Given: an object of 1 MiB, and the review's M4 claim: its sha256 with a far larger size
            Envelope stored = store(lfs, 1024 * 1024);

            // When
            HttpResponse<String> answer = lfs.send(lfs.download(stored.key(), stored.sha256(), stored.size() * 1000));

            // Then: refused on S3's Content-Length; nothing was staged, nothing stays reserved
            assertEquals(502, answer.statusCode(), answer.body());
            assertEquals("integrity_failure", code(answer.body()));
            assertTrue(answer.body().contains("does not match the claimed size"), answer.body());
            try (Stream<Path> files = Files.list(temp)) {
                assertEquals(0, files.count());
            }
            assertEquals(0, gauge(lfs, "kafscale_lfs_proxy_download_temp_bytes"));
            HttpResponse<byte[]> right = lfs.sendForBytes(lfs.download(stored.key(), stored.sha256(), stored.size()));
            assertEquals(200, right.statusCode());
        }
    }

    @Test
    void aDownloadPastTheTempBudgetGetsBusyWhileOneWithinItIsServed() throws Exception {
        try (LfsTestBed lfs = bed(limits(8, 8, 0, 4, 512 * 1024))) {
            // Given: one object larger than the temp budget, one within it
            Envelope large = store(lfs, 1024 * 1024);
            Envelope small = store(lfs, 100 * 1024);

            // When
            HttpResponse<String> refused = lfs.send(lfs.download(large.key(), large.sha256(), large.size()));
            HttpResponse<byte[]> served = lfs.sendForBytes(lfs.download(small.key(), small.sha256(), small.size()));

            // Then
            assertEquals(503, refused.statusCode(), refused.body());
            assertEquals("busy", code(refused.body()));
            assertEquals(200, served.statusCode());
            assertEquals(small.size(), served.body().length);
            Eventually.await(DEADLINE, "the served download to give its temp bytes back",
                    () -> gauge(lfs, "kafscale_lfs_proxy_download_temp_bytes") == 0);
        }
    }

    private static Envelope store(LfsTestBed lfs, int size) throws IOException {
        byte[] payload = new byte[size];
        new Random(size).nextBytes(payload);
        HttpResponse<String> produced = produce(lfs, "10.0.2.1", payload);
        assertEquals(200, produced.statusCode(), produced.body());
        return EnvelopeCodec.decode(produced.body().trim().getBytes(StandardCharsets.UTF_8));
    }

    /** The response head and body, up to the length it declares. */
    private static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            seen.write(b);
            String text = seen.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            if (end >= 0) {
                int length = contentLength(text.substring(0, end));
                if (seen.size() >= end + 4 + length) {
                    return text;
                }
            }
        }
        return seen.toString(StandardCharsets.UTF_8);
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return 0;
    }
}
