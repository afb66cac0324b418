package org.kafscale.proxy.bench.proxy;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The S3 server of the benchmark: the LFS proxy's store and the direct PUT's target. */
public record S3Target(URI endpoint, String accessKey, String secretKey, String bucket) {
    private static final String REGION = "us-east-1";

    /** The proxy's LFS settings (KafScale's names), with the HTTP API on {@code httpAddress}. */
    public Map<String, String> lfsSettings(String httpAddress) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFSCALE_PROXY_LFS_ENABLED", "true");
        env.put("KAFSCALE_LFS_PROXY_HTTP_ADDR", httpAddress);
        env.put("KAFSCALE_LFS_PROXY_S3_BUCKET", bucket);
        env.put("KAFSCALE_LFS_PROXY_S3_REGION", REGION);
        env.put("KAFSCALE_LFS_PROXY_S3_ENDPOINT", endpoint.toString());
        env.put("KAFSCALE_LFS_PROXY_S3_ACCESS_KEY", accessKey);
        env.put("KAFSCALE_LFS_PROXY_S3_SECRET_KEY", secretKey);
        env.put("KAFSCALE_LFS_PROXY_S3_FORCE_PATH_STYLE", "true");
        env.put("KAFSCALE_LFS_PROXY_S3_ENSURE_BUCKET", "true");
        return env;
    }

    /** A client for direct PUTs, configured as the proxy's own (path style, static keys). */
    public S3Client client() {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.of(REGION))
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
    }
}
