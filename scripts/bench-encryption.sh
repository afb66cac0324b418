#!/usr/bin/env bash
# What record encryption costs (issue 29): scripts/bench-tenants.sh's run with the second proxy's
# gateway file holding one encryption rule (a PKCS#12 KEK, the bench's user allowed) over its
# clients' topic, instead of a virtual cluster (VirtualClusterCostMain, bench.gateway.feature).
# Writes bench/results/encryption-<date>-<commit>.json and the section "Record encryption" of
# docs/benchmarks.md.
#
# Usage: scripts/bench-encryption.sh [-Dbench.rounds=7 ...]. About 3 minutes.
set -euo pipefail
exec "$(dirname "$0")/bench-tenants.sh" -Dbench.gateway.feature=encryption -Dbench.command=scripts/bench-encryption.sh "$@"
