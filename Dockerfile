# syntax=docker/dockerfile:1.7
# KafScale Proxy for the JVM. Build stage: the Maven wrapper builds the shaded jar of proxy-app
# (and only the modules it needs). Runtime stage: a JRE, the jar, nothing else of the build.
# Two ways to the jar, one runtime stage:
#
#   docker build -t kafscale-proxy-jvm:dev .        the default target: Maven runs in the build stage
#   scripts/image.sh [--debian-base]                 target "prebuilt": the jar the Maven build on the
#                                                    host made, no Maven in the image build (buildah)
#   docker run --read-only --tmpfs /tmp -p 9092:9092 -p 9094:9094 \
#     -e KAFSCALE_PROXY_BACKENDS=broker-0:9092 -e KAFSCALE_PROXY_ADVERTISED_HOST=localhost \
#     kafscale-proxy-jvm:dev
#
# Configuration is by environment (docs/configuration.md). deploy-tests' DockerfileTest checks
# the promises made here (user, ports, jar path, pinned images); ImageIT builds the image with
# scripts/image.sh and runs it with podman in front of real brokers, etcd and S3.

# Pinned, never "latest": a rebuild of the same commit gets the same Java. Fully qualified: podman
# and buildah resolve no short name without a search list in registries.conf.
ARG BUILD_IMAGE=docker.io/library/eclipse-temurin:17.0.15_6-jdk-noble
ARG RUNTIME_IMAGE=docker.io/library/eclipse-temurin:17.0.15_6-jre-noble

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY . .
# The Maven repository is a BuildKit cache, not a layer: a rebuild after a code change reuses the
# downloads, and the image never contains them.
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -ntp -DskipTests -pl proxy-app -am package

# Everything of the image but the jar. RUNTIME_IMAGE may be any base with a Java 17 `java` on the
# PATH, bash, and groupadd/useradd (scripts/image.sh --debian-base passes one made from Debian).
FROM ${RUNTIME_IMAGE} AS runtime
# A fixed numeric uid, so Kubernetes can verify runAsNonRoot from the image alone.
RUN groupadd --system --gid 10001 kafscale \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin kafscale
COPY --chmod=0755 docker/healthcheck.sh /opt/kafscale-proxy/healthcheck.sh
WORKDIR /opt/kafscale-proxy

# Container defaults; every other setting keeps the proxy's own default.
ENV KAFSCALE_PROXY_ADDR=:9092 \
    KAFSCALE_PROXY_HEALTH_ADDR=:9094
# The JVM reads JDK_JAVA_OPTIONS itself, so the exec-form ENTRYPOINT needs no shell; replace the
# variable to change them. The heap takes 40% of the container's memory limit because Netty's
# direct buffers may take as much again (their cap defaults to the heap size), leaving the rest
# for metaspace, threads and the code cache. /tmp is the only path the JVM writes to (temporary
# files, the error report), so the root filesystem can be read-only.
ENV JDK_JAVA_OPTIONS="-XX:MaxRAMPercentage=40 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp -XX:ErrorFile=/tmp/hs_err_pid%p.log"
VOLUME ["/tmp"]

USER 10001:10001
# Kafka listener, health and metrics (/livez, /readyz, /metrics), LFS HTTP API (when enabled).
EXPOSE 9092 9094 8080
# For docker and compose; Kubernetes ignores it (the Helm chart probes /livez and /readyz).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/opt/kafscale-proxy/healthcheck.sh"]
ENTRYPOINT ["java", "-jar", "/opt/kafscale-proxy/kafscale-proxy.jar"]

# The jar copies come last, so a code change rebuilds one layer. Owned by root and not writable by
# the proxy's user: the process cannot alter its own code.

# Target "prebuilt": the jar from the build context, made before by ./mvnw package
# (.dockerignore lets this one file of target/ through).
FROM runtime AS prebuilt
COPY --chmod=0644 proxy-app/target/kafscale-proxy.jar /opt/kafscale-proxy/kafscale-proxy.jar

# The default target: the jar the build stage made.
FROM runtime
COPY --from=build --chmod=0644 /src/proxy-app/target/kafscale-proxy.jar /opt/kafscale-proxy/kafscale-proxy.jar
