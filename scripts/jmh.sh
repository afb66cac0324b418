#!/usr/bin/env bash
# JMH microbenchmarks of the hot codec paths (frame decode, header parse, Produce split, Fetch
# merge). Short by default (1 fork, 3 x 1 s warm-up, 3 x 1 s measurement): good for spotting a
# regression of 2x, not 5%. Any JMH option replaces the defaults, e.g.
#   scripts/jmh.sh -f 2 -wi 5 -i 10 FetchMerge
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -B -q -DskipTests package -pl bench -am

if [ "$#" -eq 0 ]; then
  set -- -f 1 -wi 3 -w 1s -i 3 -r 1s
fi
exec java -cp "bench/target/classes:$(cat bench/target/bench.classpath)" org.openjdk.jmh.Main "$@"
