#!/usr/bin/env bash
# Builds librdkafka 2.12.0 once, for kcat and confluent-kafka (Python) in the integration tests.
#
# Why: Debian's librdkafka 2.0.2, which its kcat and python3-confluent-kafka use, sends a wrong
# nonce in its SCRAM final message (fixed in 2.6.1, confluentinc/librdkafka#4895); Kafka 4, and
# so the proxy, refuses it. The tests put this build first on LD_LIBRARY_PATH (testkit's
# Librdkafka); librdkafka keeps its ABI within soname librdkafka.so.1, so Debian's kcat 1.7.1 and
# confluent-kafka 1.7.0 run on it unchanged.
#
# Where from: Debian has no newer librdkafka and GitHub is out of reach, but the npm package
# node-rdkafka ships librdkafka's C sources under deps/librdkafka (3.6.1 carries 2.12.0). The
# tarball comes through npm's own client and is checked against a pinned checksum.
#
# What: only the C library (no C++ one, no examples), with TLS, SCRAM, PLAIN and OAUTHBEARER
# (builtin), OIDC client credentials (libcurl, for kcat's OAUTHBEARER: kcat has no token
# callback), zstd, gzip, snappy and lz4 as Debian's build has them. No GSSAPI (Cyrus SASL), which
# no test uses. Build dependencies come from Debian (installed as root, else named and failed).
#
# Output: $KAFSCALE_LIBRDKAFKA_DIR (default ~/.cache/kafscale-proxy/librdkafka-2.12.0), with
# lib/librdkafka.so.1 and a stamp naming the build; a later run with the same stamp does nothing.
# Quiet when it works; when a step fails it prints the end of that step's log and exits 1.
set -Eeuo pipefail
trap 'echo "ensure-librdkafka: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

LIBRDKAFKA_VERSION=2.12.0
NODE_RDKAFKA_VERSION=3.6.1
NODE_RDKAFKA_SHA256=148f7e7b65c510314c70762d8f1be052c8fe1fdf03a128e6c78083a729a57a30
# -O1 (given after configure's -O2, so it wins) and no debug symbols: about a third less compile
# time than the defaults, and test clients moving a few records do not need the speed.
CONFIGURE_OPTIONS=(--enable-ssl --enable-curl --enable-zstd --disable-lz4-ext --disable-gssapi
  --disable-debug-symbols --CFLAGS=-O1)
# Must match testkit's Librdkafka.
TARGET=${KAFSCALE_LIBRDKAFKA_DIR:-$HOME/.cache/kafscale-proxy/librdkafka-$LIBRDKAFKA_VERSION}
STAMP_TEXT="librdkafka $LIBRDKAFKA_VERSION from node-rdkafka $NODE_RDKAFKA_VERSION ${CONFIGURE_OPTIONS[*]}"

say() {
  echo "ensure-librdkafka: $*" >&2
}

built() {
  [ -f "$TARGET/lib/librdkafka.so.1" ] && [ "$(cat "$TARGET/.stamp" 2>/dev/null)" = "$STAMP_TEXT" ]
}

# The Debian packages (tools and headers) the build needs and are not there. Only those are
# installed: npm, for one, may come from elsewhere (NodeSource) and Debian's would conflict.
missing_build_tools() {
  local missing=()
  local tool
  # configure insists on a C++ compiler even for the C library alone; python3 writes the linker
  # script that keeps the exported symbols to the API's.
  for tool in gcc g++ make pkg-config python3 npm; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists openssl || missing+=(libssl-dev)
    pkg-config --exists zlib || missing+=(zlib1g-dev)
    pkg-config --exists libzstd || missing+=(libzstd-dev)
    pkg-config --exists libcurl || missing+=(libcurl4-openssl-dev)
  fi
  echo "${missing[*]:-}"
}

install_build_tools() {
  local missing
  missing=$(missing_build_tools)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing the missing build dependencies: $missing"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086 # one word per package
    if ! { apt-get update -q && apt-get install -y -q $missing; } >"$TARGET.apt.log" 2>&1; then
      tail -n 20 "$TARGET.apt.log" >&2
      say "apt-get install $missing failed (full output: $TARGET.apt.log)"
      return 1
    fi
    rm -f "$TARGET.apt.log"
    missing=$(missing_build_tools)
    [ -z "$missing" ] && return 0
    say "still missing after apt-get install: $missing"
    return 1
  fi
  say "missing build dependencies: $missing; install them as root: apt-get install -y $missing"
  return 1
}

# Runs one build step with its output in $log; on failure shows the end of it and stops.
step() {
  local name=$1
  shift
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    say "$name failed (exit $rc); the last lines of its output:"
    tail -n 40 "$log" >&2
    say "full output: $log"
    exit 1
  fi
}

build() {
  local work
  # A failed build keeps its folder for its log; the next attempt clears it.
  rm -rf "$TARGET".build.*
  work=$(mktemp -d "$TARGET.build.XXXXXX")
  log=$work/step.log
  local started=$SECONDS
  say "building librdkafka $LIBRDKAFKA_VERSION into $TARGET (once; under a minute on 2 idle cores)"
  step "npm pack node-rdkafka@$NODE_RDKAFKA_VERSION" \
    npm pack --silent --pack-destination "$work" "node-rdkafka@$NODE_RDKAFKA_VERSION"
  local tarball=$work/node-rdkafka-$NODE_RDKAFKA_VERSION.tgz
  if [ "$(sha256sum "$tarball" | cut -d' ' -f1)" != "$NODE_RDKAFKA_SHA256" ]; then
    say "node-rdkafka-$NODE_RDKAFKA_VERSION.tgz does not have the pinned sha256 $NODE_RDKAFKA_SHA256"
    exit 1
  fi
  step "unpacking" tar -xzf "$tarball" -C "$work" package/deps/librdkafka
  local src=$work/package/deps/librdkafka
  # Into a staging prefix, moved into place only when complete, so an interrupted build never
  # looks valid.
  local staging=$work/install
  step "configure" bash -c 'cd "$1" && shift && ./configure "$@"' _ "$src" --prefix="$staging" \
    "${CONFIGURE_OPTIONS[@]}"
  step "make" make -C "$src/src" -j2 lib
  step "make install" make -C "$src/src" install
  echo "$STAMP_TEXT" >"$staging/.stamp"
  rm -rf "$TARGET"
  mv "$staging" "$TARGET"
  rm -rf "$work"
  say "built in $((SECONDS - started)) s"
}

main() {
  built && return 0
  mkdir -p "$(dirname "$TARGET")"
  # One build at a time: two Maven runs starting together must not build over each other.
  exec 9>"$TARGET.lock"
  flock 9
  built && return 0
  install_build_tools
  build
  built || { say "the build finished but $TARGET/lib/librdkafka.so.1 is not there"; exit 1; }
}

main
