#!/usr/bin/env bash
# The side-by-side benchmark of issue 7: a 3-broker KRaft cluster and the proxy in separate JVMs on
# loopback, every workload run directly and through the proxy in alternating rounds. Writes
# bench/results/<date>-<commit>.json and the table in docs/benchmarks.md.
#
# Usage: scripts/bench.sh [-Dbench.rounds=5 ...]   (settings: bench/src/main/java/.../BenchSettings.java)
# Profile the proxy: scripts/bench.sh '-Dbench.proxyJvmOptions=-XX:StartFlightRecording=filename=bench/results/logs/proxy-{mode}.jfr,settings=profile'
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -B -q -DskipTests package -pl bench -am

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- . ':!docs/benchmarks.md' ':!bench/results' 2>/dev/null)" ]; then
  commit="${commit}-dirty"
fi
exec java -Xmx2g -cp "bench/target/classes:$(cat bench/target/bench.classpath)" \
  -Dbench.commit="$commit" -Dbench.command="scripts/bench.sh" "$@" \
  org.kafscale.proxy.bench.BenchMain
