#!/usr/bin/env bash
# The soak with chaos (issue 17): three brokers, etcd, S3, two proxy replicas in their own JVMs,
# idempotent producers and consumer groups through them, a transactional read-process-write loop,
# LFS uploads and downloads, admin calls, and one chaos event every 20-60 s (brokers, leaders,
# etcd, replicas, misbehaving clients, a fault relay in front of one broker; seeded: the seed is
# printed; -Dsoak.seed=N repeats a run). Prints every check as PASS or FAIL,
# writes bench/results/soak-<date>-<commit>.json and .html (charts; opened in headless Chromium
# as the last check), and exits 1 if any check failed. Not part of the default test run.
# bench/results keeps the newest result of each kind only: to keep a run, add its row to
# bench/results/history.md (date, commit, kind, headline) and git rm the result it replaces.
#
# Usage: scripts/soak.sh [--minutes 30] [-Dsoak.seed=N] [-Dsoak.recordsPerSecond=200 ...]
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=30
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --minutes=*) minutes="${1#--minutes=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

scripts/ensure-test-tools.sh >/dev/null   # etcd
scripts/ensure-browser.sh                 # the report's check
./mvnw -B -q -DskipTests package -pl bench -am
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
exec java -Xmx3g -XX:+UseG1GC -cp "bench/target/classes:$(cat bench/target/bench.classpath)" \
  -Dbench.commit="$commit" -Dsoak.minutes="$minutes" "${args[@]}" org.kafscale.proxy.bench.soak.SoakMain
