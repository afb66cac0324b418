#!/usr/bin/env bash
# The side-by-side benchmark of issue 7: a 3-broker KRaft cluster, the proxy and the peer proxy
# Kroxylicious (issue 15) in separate JVMs on loopback, every workload run directly and through
# each proxy in alternating rounds. Writes bench/results/<date>-<commit>.json and the table in
# docs/benchmarks.md.
# bench/results keeps the newest result of each kind only: to keep a run, add its row to
# bench/results/history.md (date, commit, kind, headline) and git rm the result it replaces.
#
# Usage: scripts/bench.sh [-Dbench.rounds=5 ...]   (settings: bench/src/main/java/.../BenchSettings.java)
# Profile the proxy: scripts/bench.sh '-Dbench.proxyJvmOptions=-XX:StartFlightRecording=filename=bench/results/logs/proxy-{mode}.jfr,settings=profile'
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -B -q -DskipTests package -pl bench -am
# The peer's launcher is no module of the reactor (`./mvnw verify` must not download Kroxylicious);
# its first build fetches kroxylicious-runtime 0.12.0 and its dependencies (about 30 MB) from
# Maven Central. It runs in its own JVM with this classpath: its Netty 4.1 must not meet our 4.2.
./mvnw -B -q -DskipTests package -f bench/kroxylicious/pom.xml
kroxylicious_cp="bench/kroxylicious/target/classes:$(cat bench/kroxylicious/target/kroxylicious.classpath)"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- . ':!docs/benchmarks.md' ':!bench/results' 2>/dev/null)" ]; then
  commit="${commit}-dirty"
fi
exec java -Xmx2g -cp "bench/target/classes:$(cat bench/target/bench.classpath)" \
  -Dbench.commit="$commit" -Dbench.command="scripts/bench.sh" -Dbench.kroxyliciousClasspath="$kroxylicious_cp" "$@" \
  org.kafscale.proxy.bench.BenchMain
