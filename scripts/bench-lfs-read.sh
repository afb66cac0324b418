#!/usr/bin/env bash
# What reading large messages through the proxy costs (issue 32): the bench's cluster and S3
# server, one proxy of this build resolving LFS envelopes on Fetch, payloads of 8 MiB produced
# through /lfs/produce, read back by a plain Java consumer through the proxy against GETs of the
# same objects straight from S3, in alternating rounds (LfsReadCostMain). Writes
# bench/results/lfs-read-<date>-<commit>.json and the section "Large messages read through the
# proxy" of docs/benchmarks.md.
#
# Usage: scripts/bench-lfs-read.sh [-Dbench.lfsRead.rounds=5 -Dbench.lfsRead.records=12
#        -Dbench.lfsRead.mib=8 ...]. About 3 minutes.
set -euo pipefail
BENCH_MAIN=org.kafscale.proxy.bench.LfsReadCostMain \
  exec "$(dirname "$0")/bench-tenants.sh" -Dbench.command=scripts/bench-lfs-read.sh "$@"
