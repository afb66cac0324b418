#!/usr/bin/env bash
# What a virtual cluster costs (issue 28): the bench's 3-broker cluster, two proxies of this build,
# both with SASL (SCRAM-SHA-512) on the listener, one without a gateway file and one placing the
# clients' principal in a virtual cluster with a topic prefix, and the bench's produce and consume
# throughput workloads through both in alternating rounds (VirtualClusterCostMain). Writes
# bench/results/tenants-<date>-<commit>.json and the section "Virtual clusters" of docs/benchmarks.md.
#
# Usage: scripts/bench-tenants.sh [-Dbench.rounds=7 -Dbench.tenants.mode=ports ...]
#        (the bench's settings: bench/src/main/java/.../BenchSettings.java). About 5 minutes (estimated).
# BENCH_MAIN names another main class to build and run the same way (scripts/bench-lfs-read.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -B -q -DskipTests package -pl bench -am

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- . ':!docs/benchmarks.md' ':!bench/results' 2>/dev/null)" ]; then
  commit="${commit}-dirty"
fi
exec java -Xmx2g -cp "bench/target/classes:$(cat bench/target/bench.classpath)" \
  -Dbench.commit="$commit" -Dbench.command="scripts/bench-tenants.sh" "$@" \
  "${BENCH_MAIN:-org.kafscale.proxy.bench.VirtualClusterCostMain}"
