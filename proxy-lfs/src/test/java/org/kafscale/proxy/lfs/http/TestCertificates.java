package org.kafscale.proxy.lfs.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate made with the JDK's keytool, available both as a PKCS#12 key store
 * (for a Java client) and as PEM files (for the Netty server).
 */
public final class TestCertificates {
    private static final char[] PASSWORD = "changeit".toCharArray();

    public final KeyStore store;
    public final Path certPem;
    public final Path keyPem;

    private TestCertificates(KeyStore store, Path certPem, Path keyPem) {
        this.store = store;
        this.certPem = certPem;
        this.keyPem = keyPem;
    }

    public static TestCertificates create(Path dir, String name) throws Exception {
        Path p12 = dir.resolve(name + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", p12.toString(), "-storepass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IOException("keytool failed: " + new String(keytool.getInputStream().readAllBytes(),
                    StandardCharsets.UTF_8));
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            store.load(in, PASSWORD);
        }
        Certificate cert = store.getCertificate(name);
        Path certPem = dir.resolve(name + ".crt");
        Path keyPem = dir.resolve(name + ".key");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", store.getKey(name, PASSWORD).getEncoded()));
        return new TestCertificates(store, certPem, keyPem);
    }

    /** A client context that trusts {@code server} and, when given, presents {@code client}. */
    public static SSLContext clientContext(TestCertificates server, TestCertificates client) throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(server.store);
        KeyManagerFactory keys = null;
        if (client != null) {
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(client.store, PASSWORD);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
        return context;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
