package org.kafscale.proxy.lfs.s3;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/** Builds the S3 clients of the LFS module from {@link S3Settings}, in one place. */
public final class S3Clients {
    /** Enough parallel S3 connections for many concurrent uploads; each upload uses one at a time. */
    private static final int MAX_CONCURRENCY = 256;

    private S3Clients() {
    }

    /** The asynchronous client (Netty-based, non-blocking) for every S3 call of the module. */
    public static S3AsyncClient asyncClient(S3Settings settings) {
        var builder = S3AsyncClient.builder()
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials(settings))
                .forcePathStyle(settings.forcePathStyle())
                // The proxy computes its own SHA-256 of every payload; the SDK's extra CRC trailers
                // only cost time and are not understood by every S3-compatible store.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                        .maxConcurrency(MAX_CONCURRENCY)
                        .connectionAcquisitionTimeout(Duration.ofSeconds(60)));
        settings.endpoint().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /** The presigner, pointed at the public endpoint when one is set. */
    public static S3Presigner presigner(S3Settings settings) {
        var builder = S3Presigner.builder()
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials(settings))
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(settings.forcePathStyle()).build());
        URI endpoint = settings.publicEndpoint().or(settings::endpoint).orElse(null);
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder.build();
    }

    private static AwsCredentialsProvider credentials(S3Settings settings) {
        if (!settings.staticCredentials()) {
            return DefaultCredentialsProvider.builder().build();
        }
        if (!settings.sessionToken().isEmpty()) {
            return StaticCredentialsProvider.create(AwsSessionCredentials.create(settings.accessKey(),
                    settings.secretKey(), settings.sessionToken()));
        }
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()));
    }
}
