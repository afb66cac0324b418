package org.kafscale.proxy.lfs.s3;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
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
    private static final Duration ACQUISITION_TIMEOUT = Duration.ofSeconds(60);

    /**
     * For a request whose body can be read only once (streamed from the client): a single attempt.
     * A retry would fail anyway ("a request body can be read only once") after waiting again for a
     * connection, and hide the first attempt's cause.
     */
    public static final AwsRequestOverrideConfiguration ONE_ATTEMPT = AwsRequestOverrideConfiguration.builder()
            .addPlugin(config -> config.overrideConfiguration(config.overrideConfiguration().toBuilder()
                    .retryStrategy(AwsRetryStrategy.doNotRetry()).build()))
            .build();

    private S3Clients() {
    }

    /** An asynchronous client with the default pool (tools and tests). */
    public static S3AsyncClient asyncClient(S3Settings settings) {
        return asyncClient(settings, MAX_CONCURRENCY, ACQUISITION_TIMEOUT);
    }

    /**
     * An asynchronous client (Netty-based, non-blocking) with a connection pool of its own.
     *
     * @param connections the pool's size
     * @param acquisitionTimeout how long a call waits for a free connection before it fails
     */
    public static S3AsyncClient asyncClient(S3Settings settings, int connections, Duration acquisitionTimeout) {
        var builder = S3AsyncClient.builder()
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials(settings))
                .forcePathStyle(settings.forcePathStyle())
                // The proxy computes its own SHA-256 of every payload; the SDK's extra CRC trailers
                // only cost time and are not understood by every S3-compatible store.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                        .maxConcurrency(connections)
                        .connectionAcquisitionTimeout(acquisitionTimeout));
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
