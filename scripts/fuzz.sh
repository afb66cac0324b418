#!/usr/bin/env bash
# Coverage-guided fuzzing (Jazzer) of everything that reads bytes from outside. Not part of the
# default run: `./mvnw verify` replays the saved inputs of every target (regression mode).
#
#   scripts/fuzz.sh [--minutes N] [--target T] [--list]
#
# Runs each target (or those whose name contains T) for N minutes (default 2), one at a time,
# with JAZZER_FUZZ=1. libFuzzer keeps an input only when it reaches new coverage, and shrinks the
# ones it keeps (at most --max-len bytes, default 4096) in <module>/.cifuzz-corpus/ (not committed).
# Afterwards that corpus and the saved inputs are minimised together (libFuzzer's merge: the fewest
# inputs that keep every edge) into the target's regression directory,
# <module>/src/test/resources/<package>/<Class>Inputs/<method>/, where Jazzer also writes every
# crash it finds (crash-*). Commit those files: the default run replays them.
# Per target it prints executions, coverage (edges) and features from libFuzzer's last line, and
# keeps the whole log in target/fuzz/<Class>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

# module:Class#method, Class fully qualified.
TARGETS=(
  "proxy-core:org.kafscale.proxy.core.codec.ClientFramesFuzzTest#clientBytesBecomeFramesOrACloseAndNothingLeaks"
  "proxy-core:org.kafscale.proxy.core.codec.RequestBodiesFuzzTest#decodedBodiesParseOrFailWithTheProtocolError"
  "proxy-discovery:org.kafscale.proxy.discovery.etcd.EtcdValuesFuzzTest#aSnapshotThatParsesBecomesATopology"
  "proxy-discovery:org.kafscale.proxy.discovery.etcd.EtcdValuesFuzzTest#leaseKeysAndValuesParseOrAreIgnored"
  "proxy-lfs:org.kafscale.proxy.lfs.envelope.EnvelopeCodecFuzzTest#recordValuesDecodeToEnvelopesThatRoundTripOrAreRefused"
  "proxy-lfs:org.kafscale.proxy.lfs.uploads.UploadBodiesFuzzTest#uploadBodiesParseOrGetTheirDocumentedError"
  "proxy-lfs:org.kafscale.proxy.lfs.http.LfsHttpFuzzTest#requestBytesGetAnAnswerOrACloseNeverAServerError"
  "proxy-fetch:org.kafscale.proxy.routing.RoutedRequestsFuzzTest#routedRequestsGetAnAnswerOrADocumentedClose"
  "proxy-fetch:org.kafscale.proxy.routing.BrokerAnswersFuzzTest#aBrokerAnsweringAnyBytesLeavesTheClientAParsedAnswerOrAClose"
  "proxy-fetch:org.kafscale.proxy.routing.produce.ProduceOutlineFuzzTest#whatTheOutlineReadsTheDecodeReadsAlike"
)

minutes=2
filter=""
max_len=4096
while [ "$#" -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --target) filter="$2"; shift 2 ;;
    --max-len) max_len="$2"; shift 2 ;;
    --list) printf '%s\n' "${TARGETS[@]}"; exit 0 ;;
    *) echo "usage: $0 [--minutes N] [--target T] [--max-len BYTES] [--list]" >&2; exit 2 ;;
  esac
done
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')

# Replaces the target's regression inputs by the smallest set of its inputs and the generated
# corpus that keeps every coverage edge (libFuzzer's -merge=1, run through Jazzer's own driver
# with counters and value profile off, so that only edges count). Crash inputs are kept as they are.
minimise() {
  local module="$1" class="$2" method="$3" inputs="$4" log="$5"
  local classpath="$module/target/fuzz/classpath.txt"
  ./mvnw -o -q -pl "$module" -am test-compile dependency:build-classpath \
      -Dmdep.outputFile="$PWD/$classpath" -Dmdep.includeScope=test >> "$log" 2>&1 || return 0
  local merged
  merged="$(mktemp -d)"
  # The driver adds the target's regression inputs and generated corpus as corpora itself.
  (cd "$module" && java -cp "target/test-classes:target/classes:$(cat "$PWD/../$classpath")" \
      -Dlogback.configurationFile="$PWD/../scripts/fuzz-logback.xml" \
      com.code_intelligence.jazzer.Jazzer --target_class="$class" --target_method="$method" \
      '--instrumentation_includes=org.kafscale.**:org.apache.kafka.common.**:com.fasterxml.jackson.**:io.netty.handler.codec.http.**' \
      -merge=1 -use_counters=0 -use_value_profile=0 -max_len="$max_len" "$merged") >> "$log" 2>&1 || true
  if [ -n "$(ls -A "$merged")" ]; then
    find "$inputs" -type f ! -name 'crash-*' -delete
    cp "$merged"/* "$inputs"/
  fi
  rm -rf "$merged"
}

ran=0
summary=()
for entry in "${TARGETS[@]}"; do
  module="${entry%%:*}"
  test="${entry#*:}"
  class="${test%%#*}"
  method="${test#*#}"
  if [ -n "$filter" ] && [[ "$test" != *"$filter"* ]]; then
    continue
  fi
  ran=$((ran + 1))
  simple="${class##*.}"
  log="$module/target/fuzz/$simple.$method.log"
  mkdir -p "$module/target/fuzz"
  echo "== fuzzing $simple#$method ($module) for $minutes min; log: $log"
  status=0
  JAZZER_FUZZ=1 ./mvnw -o -B -pl "$module" -am test \
      -Dtest="$simple#$method" -Dsurefire.failIfNoSpecifiedTests=false \
      -Dsurefire.redirectTestOutput=false -Djazzer.hooks=true \
      -Dlogback.configurationFile="$PWD/scripts/fuzz-logback.xml" \
      '-Djazzer.instrument=org.kafscale.**,org.apache.kafka.common.**,com.fasterxml.jackson.**,io.netty.handler.codec.http.**' \
      -Djazzer.internal.arg.0=fuzz \
      -Djazzer.internal.arg.1=-max_total_time="$seconds" \
      -Djazzer.internal.arg.2=-max_len="$max_len" \
      > "$log" 2>&1 || status=$?

  last="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
  execs="$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")"
  cov="$(grep -oE 'cov: [0-9]+' <<<"$last" | cut -d' ' -f2)"
  ft="$(grep -oE 'ft: [0-9]+' <<<"$last" | cut -d' ' -f2)"
  rate="$(grep -oE 'exec/s: [0-9]+' <<<"$last" | cut -d' ' -f2)"
  inputs="$module/src/test/resources/${class%.*}"
  inputs="${inputs//.//}/${simple}Inputs/$method"
  mkdir -p "$inputs"
  before="$(find "$inputs" -type f | wc -l)"
  minimise "$module" "$class" "$method" "$inputs" "$log"
  after="$(find "$inputs" -type f | wc -l)"
  verdict=$([ "$status" -eq 0 ] && echo "no finding" || echo "FINDING (see $log)")
  line="$simple#$method: ${execs:-?} executions (${rate:-?}/s), cov ${cov:-?}, ft ${ft:-?}, regression inputs $before -> $after, $verdict"
  echo "   $line"
  summary+=("$line")
done

if [ "$ran" -eq 0 ]; then
  echo "no target matches '$filter'; --list shows them" >&2
  exit 2
fi
echo
echo "Summary ($minutes min per target):"
printf '  %s\n' "${summary[@]}"
