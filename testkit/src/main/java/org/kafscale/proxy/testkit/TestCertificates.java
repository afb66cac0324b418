package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A test certificate authority and the certificates it signs, written as files the way a
 * deployment holds them: PEM (certificate, PKCS#8 key, CA bundle) and PKCS#12 (key store with the
 * chain, trust store with the CA). Made fresh by the test, so nothing secret is checked in.
 *
 * <p>{@link #create} makes a CA; {@link #server()} a certificate for {@code localhost} and
 * {@code 127.0.0.1} (what brokers and the proxy listen on in tests), {@link #client} one per
 * principal. {@link #issue} makes any other, for example a server certificate whose names do not
 * match, to prove hostname verification. Two {@code create} calls make two CAs that do not trust
 * each other (an untrusted client certificate); named CAs ({@link #create(Path, String)}) may share
 * a directory. {@link #replace} swaps an identity's files in place, as a Kubernetes secret rotation
 * does, and {@link #clientContext} is a JDK client's TLS context. Keys are EC P-256: fast to
 * make, and every client the tests run (Java, librdkafka, Python, Node, Go) accepts them. Made in
 * the test JVM (BouncyCastle), no process forked.
 */
public final class TestCertificates {
    /** Password of every PKCS#12 file this class writes. */
    public static final String PASSWORD = "test-password";

    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
    private static final Duration VALIDITY = Duration.ofDays(2);
    private static final String SIGNATURE = "SHA256withECDSA";

    private final Path directory;
    private final String prefix;
    /** How long the CA and every certificate it issues are valid, from an hour ago. */
    private final Duration validity;
    private final KeyPair caKeys;
    private final X509Certificate caCertificate;
    private final Path caFile;
    private final Path trustStoreFile;
    private Identity server;

    /** A certificate with its key, in every form the tests hand to servers and clients. */
    public record Identity(
            /** The certificate alone, PEM. */
            Path certificateFile,
            /** The unencrypted PKCS#8 private key, PEM. */
            Path keyFile,
            /** Certificate followed by the CA's, PEM (what a server sends as its chain). */
            Path chainFile,
            /** Key and chain in a PKCS#12 key store, password {@link #PASSWORD}. */
            Path keyStoreFile,
            X509Certificate certificate,
            PrivateKey privateKey) {

        /** The key store's password ({@link TestCertificates#PASSWORD}). */
        public String password() {
            return PASSWORD;
        }
    }

    private TestCertificates(Path directory, String prefix, Duration validity, KeyPair caKeys,
                             X509Certificate caCertificate) {
        this.directory = directory;
        this.prefix = prefix;
        this.validity = validity;
        this.caKeys = caKeys;
        this.caCertificate = caCertificate;
        this.caFile = directory.resolve(prefix + "ca.pem");
        this.trustStoreFile = directory.resolve(prefix + "truststore.p12");
    }

    /** A new CA named {@code CN=KafScale Test CA}, its files written under {@code directory}. */
    public static TestCertificates create(Path directory) {
        return create(directory, "");
    }

    /**
     * A new CA whose files (and those of the certificates it issues) are named {@code <name>-...},
     * so several CAs may share {@code directory}.
     */
    public static TestCertificates create(Path directory, String name) {
        return create(directory, name, VALIDITY);
    }

    /**
     * As {@link #create(Path, String)}, the CA and what it issues valid for {@code validity} (two
     * days otherwise), e.g. to show a certificate near its expiry renewed by a longer one.
     */
    public static TestCertificates create(Path directory, String name, Duration validity) {
        String prefix = name.isEmpty() ? "" : name + "-";
        try {
            Files.createDirectories(directory);
            KeyPair keys = newKeyPair();
            X500Name caName = new X500Name("CN=KafScale Test CA " + (name.isEmpty() ? "" : name + " ")
                    + SERIALS.incrementAndGet());
            X509v3CertificateBuilder builder = builder(caName, caName, keys, keys, validity);
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    extensions.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate ca = sign(builder, keys.getPrivate());
            TestCertificates certificates = new TestCertificates(directory, prefix, validity, keys, ca);
            Files.writeString(certificates.caFile, pem(ca), StandardCharsets.US_ASCII);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            store(trust, certificates.trustStoreFile);
            return certificates;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make a test CA", e);
        }
    }

    /** The CA certificate, PEM: what a client or server trusts. */
    public Path caFile() {
        return caFile;
    }

    /** A PKCS#12 trust store holding only the CA, password {@link #PASSWORD}. */
    public Path trustStoreFile() {
        return trustStoreFile;
    }

    public X509Certificate caCertificate() {
        return caCertificate;
    }

    /** The server certificate for {@code localhost} and {@code 127.0.0.1}, made on first use. */
    public synchronized Identity server() {
        if (server == null) {
            server = issue("server", "CN=localhost", List.of("localhost"), List.of("127.0.0.1"), true);
        }
        return server;
    }

    /** Another server certificate for {@code localhost} and {@code 127.0.0.1}, its files named after {@code fileName}. */
    public Identity server(String fileName) {
        return issue(fileName, "CN=" + fileName, List.of("localhost"), List.of("127.0.0.1"), true);
    }

    /** A client certificate with subject {@code CN=<commonName>} (the principal mTLS derives). */
    public Identity client(String commonName) {
        return issue("client-" + commonName, "CN=" + commonName, List.of(), List.of(), false);
    }

    /** A client certificate with this subject (an X.500 name such as {@code CN=app,OU=team,O=corp}). */
    public Identity client(String fileName, String subject) {
        return issue(fileName, subject, List.of(), List.of(), false);
    }

    /**
     * A JDK client's TLS context that trusts this CA and presents {@code presenting} (none when
     * null), for HTTPS clients.
     */
    public SSLContext clientContext(Identity presenting) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCertificate);
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = null;
            if (presenting != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("key", presenting.privateKey(), PASSWORD.toCharArray(),
                        new Certificate[] {presenting.certificate()});
                keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keys, PASSWORD.toCharArray());
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a client TLS context", e);
        }
    }

    /**
     * Puts {@code renewed}'s PEM files where {@code target}'s are, each replaced by a move, the way
     * a rotation leaves them: the key first, then the certificate and the chain.
     */
    public static void replace(Identity target, Identity renewed) throws IOException {
        Path[][] pairs = {{renewed.keyFile(), target.keyFile()}, {renewed.certificateFile(), target.certificateFile()},
                {renewed.chainFile(), target.chainFile()}};
        for (Path[] pair : pairs) {
            Path staged = pair[1].resolveSibling(pair[1].getFileName() + ".new");
            Files.copy(pair[0], staged, StandardCopyOption.REPLACE_EXISTING);
            Files.move(staged, pair[1], StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /**
     * A certificate signed by this CA with the given subject and subject alternative names, its
     * files named after {@code fileName}. {@code server} adds the server extended key usage to
     * the client one.
     */
    public Identity issue(String fileName, String subject, List<String> dnsNames, List<String> ipAddresses,
                          boolean server) {
        try {
            KeyPair keys = newKeyPair();
            X509v3CertificateBuilder builder = builder(X500Name.getInstance(caCertificate.getSubjectX500Principal().getEncoded()),
                    x500(subject), keys, caKeys, validity);
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
            // A broker is also a client of the other brokers, with the same certificate.
            builder.addExtension(Extension.extendedKeyUsage, false, server
                    ? new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth})
                    : new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            builder.addExtension(Extension.authorityKeyIdentifier, false,
                    extensions.createAuthorityKeyIdentifier(caCertificate));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    extensions.createSubjectKeyIdentifier(keys.getPublic()));
            List<GeneralName> names = new ArrayList<>();
            dnsNames.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
            ipAddresses.forEach(n -> names.add(new GeneralName(GeneralName.iPAddress, n)));
            if (!names.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            X509Certificate certificate = sign(builder, caKeys.getPrivate());
            return write(fileName, certificate, keys.getPrivate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue a test certificate for " + subject, e);
        }
    }

    private Identity write(String fileName, X509Certificate certificate, PrivateKey key)
            throws IOException, GeneralSecurityException {
        Path certificateFile = directory.resolve(prefix + fileName + ".pem");
        Path keyFile = directory.resolve(prefix + fileName + ".key");
        Path chainFile = directory.resolve(prefix + fileName + "-chain.pem");
        Path keyStoreFile = directory.resolve(prefix + fileName + ".p12");
        Files.writeString(certificateFile, pem(certificate), StandardCharsets.US_ASCII);
        Files.writeString(keyFile, pem(new PemObject("PRIVATE KEY", key.getEncoded())), StandardCharsets.US_ASCII);
        Files.writeString(chainFile, pem(certificate) + pem(caCertificate), StandardCharsets.US_ASCII);
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry("key", key, PASSWORD.toCharArray(), new Certificate[] {certificate, caCertificate});
        store(keyStore, keyStoreFile);
        return new Identity(certificateFile, keyFile, chainFile, keyStoreFile, certificate, key);
    }

    /**
     * The name as the JDK (and keytool, and Kafka's principal mapping) read it: {@code
     * CN=app,OU=team} is the certificate whose subject prints so. BouncyCastle's own parser keeps
     * the string's order in the encoding, which the JDK then prints reversed.
     */
    private static X500Name x500(String subject) {
        return X500Name.getInstance(new X500Principal(subject).getEncoded());
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair subjectKeys,
                                                    KeyPair issuerKeys, Duration validity) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(validity)), subject,
                subjectKeys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuerKey)));
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static void store(KeyStore store, Path file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, PASSWORD.toCharArray());
        }
    }

    private static String pem(Object object) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        }
        return text.toString();
    }
}
