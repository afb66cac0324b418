#!/usr/bin/env bash
# Where each proxy's CPU goes while the bench produces through it (issue 15): runs the bench's
# throughput rounds, records every process with `perf` (system-wide, cpu-clock) from the first
# produce round to the first consume round, and prints per proxy process the samples of its event
# loops (kernel and JIT-compiled code apart), of the JIT compiler, GC and its other threads. Every
# route of a round produces the same records, so samples compare as CPU per MiB. JFR cannot show
# this: it samples only threads running Java, and an event loop is mostly in the kernel.
#
# Usage: scripts/perf-produce.sh [-Dbench.rounds=3 ...]   (needs perf; root or perf_event_paranoid <= 0
#        for system-wide recording). Writes nothing under bench/results or docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "perf-produce: perf is not installed" >&2; exit 2; }

out="$(mktemp -d)"
log="$out/bench.log"
cp docs/benchmarks.md "$out/benchmarks.md"
echo "perf-produce: working in $out"

record_produce_rounds() {
  until grep -q "produce round 0" "$log" 2>/dev/null; do sleep 0.5; done
  ss -ltnp > "$out/listeners.txt"
  perf record -e cpu-clock -F 499 -a -o "$out/produce.data" > "$out/perf.out" 2>&1 &
  local perf_pid=$!
  until grep -q "consume round 0" "$log" 2>/dev/null; do
    if ! kill -0 "$perf_pid" 2>/dev/null; then return; fi
    sleep 0.5
  done
  kill -INT "$perf_pid"
  wait "$perf_pid" || true
}
record_produce_rounds &
recorder=$!

scripts/bench.sh -Dbench.workloads=throughput -Dbench.rounds=3 -Dbench.resultsDir="$out" \
    -Dbench.document="$out/benchmarks.md" "$@" > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
wait "$recorder"

# Route name -> pid, from the bench's "<route> at 127.0.0.1:<port>" lines and the listeners then.
routes="$out/routes.txt"
: > "$routes"
grep -E '^\[bench\] (proxy, .* mode|Kroxylicious) at 127\.0\.0\.1:[0-9]+$' "$log" | while read -r line; do
  name="${line#\[bench\] }"; name="${name% at *}"
  port="${line##*:}"
  pid="$(grep ":$port " "$out/listeners.txt" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)"
  [ -n "$pid" ] && printf '%s\t%s\n' "$pid" "$name" >> "$routes"
done

perf script -i "$out/produce.data" -F comm,pid,tid,ip,dso 2>/dev/null > "$out/samples.txt"
python3 - "$routes" "$out/samples.txt" <<'EOF'
import collections, re, sys

routes = dict(line.rstrip('\n').split('\t') for line in open(sys.argv[1]) if line.strip())
kinds = collections.defaultdict(collections.Counter)
loops = collections.defaultdict(collections.Counter)
others = collections.defaultdict(collections.Counter)
sample = re.compile(r'\s*(.*?)\s+(\d+)/(\d+)\s+\S+\s+\((.*)\)\s*$')
for line in open(sys.argv[2], errors='replace'):
    m = sample.match(line)
    if not m or m.group(2) not in routes:
        continue
    thread, pid, dso = m.group(1).strip(), m.group(2), m.group(4)
    route = routes[pid]
    if thread.startswith(('C1 ', 'C2 ')):
        kind = 'JIT compiler'
    elif thread.startswith(('GC ', 'G1 ')):
        kind = 'GC'
    elif thread.startswith(('kafka-io', 'epollEventLoop')):  # ours, Kroxylicious'
        kind = 'event loops'
        loops[route]['kernel' if 'kernel' in dso else 'JVM (libjvm)' if 'libjvm' in dso else 'compiled Java'] += 1
    else:
        kind = 'other threads'
        others[route][re.sub(r'[-#]?[0-9]+(-[0-9]+)*$', '', thread)] += 1
    kinds[route][kind] += 1

print('perf samples at 499 Hz during the produce rounds (every route produced the same records):')
for route in routes.values():
    k = kinds[route]
    print(f"\n{route}: {sum(k.values())} samples")
    for kind in ('event loops', 'other threads', 'JIT compiler', 'GC'):
        print(f"  {kind:14} {k[kind]:6}")
    print('  event loops:  ' + ', '.join(f'{n} {c}' for n, c in loops[route].most_common()))
    print('  other threads: ' + ', '.join(f'{n} {c}' for n, c in others[route].most_common(6)))
EOF
