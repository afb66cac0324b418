#!/usr/bin/env bash
# This tree's proxy against another commit's, side by side in one run (BuildComparisonMain): the
# bench's cluster, both builds in the same advertise mode, direct Kafka beside them, alternating
# produce and consume rounds. Two separate bench runs cannot tell two builds apart here: the host
# changes speed by up to two times between runs (docs/benchmarks.md, "Comparing two builds").
#
# Usage: scripts/compare-builds.sh <commit> [-Dcompare.mode=ports -Dcompare.rounds=9 ...]
#        Builds <commit> in a temporary git worktree (removed at the end); writes nothing under
#        bench/results but the logs in bench/results/logs/compare/. About 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
baseline="${1:?usage: scripts/compare-builds.sh <commit> [-Dcompare.*=...]}"
shift
baseline_name=$(git rev-parse --short "$baseline")

worktree="$(mktemp -d)"
cleanup() { git worktree remove --force "$worktree" >/dev/null 2>&1 || rm -rf "$worktree"; }
trap cleanup EXIT
git worktree add --detach -q "$worktree" "$baseline"
echo "compare-builds: building $baseline_name in $worktree"
(cd "$worktree" && ./mvnw -B -q -DskipTests package -pl bench -am)
./mvnw -B -q -DskipTests package -pl bench -am

baseline_cp="$worktree/bench/target/classes:$(cat "$worktree/bench/target/bench.classpath")"
java -Xmx2g -cp "bench/target/classes:$(cat bench/target/bench.classpath)" \
  -Dcompare.baselineClasspath="$baseline_cp" -Dcompare.baseline="$baseline_name" "$@" \
  org.kafscale.proxy.bench.BuildComparisonMain
