#!/usr/bin/env bash
# Issue 17: one proxy holding 10,000 idle client connections (each did ApiVersions, then went
# quiet): memory per connection, and how long a new client waits meanwhile (p99 of connect plus
# ApiVersions at most 50 ms). Writes bench/results/idle-<date>-<commit>.json; exits 1 when the
# bound is missed. About 2 minutes, most of it starting the cluster.
# bench/results keeps the newest result of each kind only: to keep a run, add its row to
# bench/results/history.md (date, commit, kind, headline) and git rm the result it replaces.
#
# Usage: scripts/idle-connections.sh [-Didle.connections=10000] [-Didle.probes=200]
# Needs a file-descriptor limit above the connection count in this shell (ulimit -n); the proxy
# and the clients are separate processes, each holding one descriptor per connection.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(( ${IDLE_CONNECTIONS:-10000} + 2000 ))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$want" ]; then
  ulimit -n "$want" 2>/dev/null || { echo "ulimit -n is $(ulimit -n); need $want descriptors" >&2; exit 2; }
fi

./mvnw -B -q -DskipTests package -pl bench -am
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
exec java -Xmx1g -cp "bench/target/classes:$(cat bench/target/bench.classpath)" -Dbench.commit="$commit" "$@" \
  org.kafscale.proxy.bench.idle.IdleConnectionsMain
