package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for tests, made with the JDK's keytool: a CA, and leaf certificates it signs
 * (servers with {@code localhost}/{@code 127.0.0.1} names, clients with a subject of the test's
 * choosing), each as PEM files (certificate chain, PKCS#8 key) and as a PKCS#12 key store. The
 * CA is also a PEM file and a PKCS#12 trust store. {@link #replace} swaps a leaf's files in place,
 * as a Kubernetes secret rotation does (the listener TLS tests rotate with it).
 *
 * <p>{@link TestCertificates} (BouncyCastle) makes the same kind of chain for the broker-side
 * tests; the two came from parallel work and should become one.
 */
public final class ChainCertificates {
    /** The password of every key store made here (and of its keys). */
    public static final String PASSWORD = "changeit";

    private final Path dir;
    private final String name;
    private final Path caP12;
    /** The CA's certificate (PEM). */
    public final Path caPem;
    /** A PKCS#12 trust store holding the CA's certificate. */
    public final Path trustStore;

    private ChainCertificates(Path dir, String name, Path caP12, Path caPem, Path trustStore) {
        this.dir = dir;
        this.name = name;
        this.caP12 = caP12;
        this.caPem = caPem;
        this.trustStore = trustStore;
    }

    /** A leaf certificate signed by the CA, in every form a test needs. */
    public record Leaf(String subject, Path certPem, Path keyPem, Path keyStore, X509Certificate certificate) {
    }

    /** Makes a CA named {@code name} under {@code dir}. */
    public static ChainCertificates authority(Path dir, String name) throws Exception {
        Files.createDirectories(dir);
        Path caP12 = dir.resolve(name + "-ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "bc:c", "-validity", "2", "-storetype", "PKCS12", "-keystore", caP12.toString(),
                "-storepass", PASSWORD);
        KeyStore ca = load(caP12);
        Path caPem = dir.resolve(name + "-ca.crt");
        Files.writeString(caPem, pem("CERTIFICATE", certificate(ca, "ca").getEncoded()));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificate(ca, "ca"));
        Path trustStore = dir.resolve(name + "-truststore.p12");
        store(trust, trustStore);
        return new ChainCertificates(dir, name, caP12, caPem, trustStore);
    }

    /** A server certificate for {@code localhost} and {@code 127.0.0.1}. */
    public Leaf server(String leafName) throws Exception {
        return leaf(leafName, "CN=" + leafName, "SAN=dns:localhost,ip:127.0.0.1");
    }

    /** A client certificate with this subject (an X.500 name such as {@code CN=app,OU=team,O=corp}). */
    public Leaf client(String leafName, String subject) throws Exception {
        return leaf(leafName, subject, null);
    }

    private Leaf leaf(String leafName, String subject, String extension) throws Exception {
        String prefix = name + "-" + leafName;
        Path p12 = dir.resolve(prefix + "-key.p12");
        Files.deleteIfExists(p12);
        keytool("-genkeypair", "-alias", "leaf", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", subject,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", p12.toString(), "-storepass", PASSWORD);
        Path csr = dir.resolve(prefix + ".csr");
        keytool("-certreq", "-alias", "leaf", "-keystore", p12.toString(), "-storepass", PASSWORD,
                "-file", csr.toString());
        Path signed = dir.resolve(prefix + ".der");
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", caP12.toString(),
                "-storepass", PASSWORD, "-infile", csr.toString(), "-outfile", signed.toString(), "-validity", "2"));
        if (extension != null) {
            gencert.addAll(List.of("-ext", extension));
        }
        keytool(gencert.toArray(String[]::new));
        X509Certificate cert;
        try (InputStream in = Files.newInputStream(signed)) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException(e);
        }
        KeyStore ca = load(caP12);
        Certificate[] chain = {cert, certificate(ca, "ca")};
        PrivateKey key = privateKey(load(p12), "leaf");
        KeyStore leafStore;
        try {
            leafStore = KeyStore.getInstance("PKCS12");
            leafStore.load(null, null);
            leafStore.setKeyEntry("leaf", key, PASSWORD.toCharArray(), chain);
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException(e);
        }
        Path keyStore = dir.resolve(prefix + ".p12");
        store(leafStore, keyStore);
        Path certPem = dir.resolve(prefix + ".crt");
        Path keyPem = dir.resolve(prefix + ".key");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()) + pem("CERTIFICATE", chain[1].getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
        return new Leaf(subject, certPem, keyPem, keyStore, cert);
    }

    /**
     * Puts {@code leaf}'s files where {@code target}'s are, each replaced by a move, the way a
     * rotation leaves them: the key first, then the certificate chain.
     */
    public static void replace(Leaf target, Leaf leaf) throws IOException {
        for (Path[] pair : new Path[][] {{leaf.keyPem(), target.keyPem()}, {leaf.certPem(), target.certPem()}}) {
            Path staged = pair[1].resolveSibling(pair[1].getFileName() + ".new");
            Files.copy(pair[0], staged, StandardCopyOption.REPLACE_EXISTING);
            Files.move(staged, pair[1], StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            boolean exited = keytool.waitFor(60, TimeUnit.SECONDS);
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!exited || keytool.exitValue() != 0) {
                keytool.destroyForcibly();
                throw new IOException("keytool " + args[0] + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            keytool.destroyForcibly();
            throw new IOException("interrupted while keytool ran", e);
        }
    }

    private static KeyStore load(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, PASSWORD.toCharArray());
            return store;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot read " + file, e);
        }
    }

    private static void store(KeyStore store, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, PASSWORD.toCharArray());
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot write " + file, e);
        }
    }

    private static Certificate certificate(KeyStore store, String alias) throws IOException {
        try {
            return store.getCertificate(alias);
        } catch (java.security.KeyStoreException e) {
            throw new IOException(e);
        }
    }

    private static PrivateKey privateKey(KeyStore store, String alias) throws IOException {
        try {
            return (PrivateKey) store.getKey(alias, PASSWORD.toCharArray());
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
