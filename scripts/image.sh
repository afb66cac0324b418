#!/usr/bin/env bash
# Builds the proxy's container image from the repository's Dockerfile with buildah: no Docker
# daemon, no Maven inside the build. The jar is the one the Maven build made
# (proxy-app/target/kafscale-proxy.jar, `./mvnw -B -DskipTests -pl proxy-app -am package`); the
# Dockerfile's `prebuilt` target copies it onto the runtime stage.
#
#   scripts/image.sh                  on the Dockerfile's pinned public base image (a registry)
#   scripts/image.sh --debian-base    on a base made here from Debian's packages (mmdebstrap:
#                                     bookworm, openjdk-17-jre-headless, ca-certificates, passwd),
#                                     given to the same Dockerfile as its RUNTIME_IMAGE build arg;
#                                     what CI and machines without a container registry use
#   --tag NAME                        the image's name (default localhost/kafscale-proxy-jvm:dev)
#
# The Debian base is kept in the local image store, named after a hash of its package list, so a
# later run on the same machine reuses it (making it takes about 85 s).
#
# Podman, buildah, runc and mmdebstrap are installed from Debian when missing and running as root
# with apt-get; otherwise the script names them and exits 3 (the image test then skips, saying so).
# It writes the containers.conf podman and buildah need here into a folder of its own
# ($KAFSCALE_IMAGE_DIR, default ~/.cache/kafscale-proxy/image): runc, since crun cannot set
# resource limits on this kind of host ("setrlimit RLIMIT_NOFILE: Operation not permitted"), and
# no default ulimits, which runc cannot raise either. Run podman with CONTAINERS_CONF at it.
#
# Last lines, for people and for the image test: "image:", "id:", "size:" (bytes) and
# "containers.conf:".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE_DIR=${KAFSCALE_IMAGE_DIR:-$HOME/.cache/kafscale-proxy/image}
CONTAINERS_CONF_FILE=$STATE_DIR/containers.conf
TAG=localhost/kafscale-proxy-jvm:dev
DEBIAN_BASE=false
JAR=proxy-app/target/kafscale-proxy.jar

TOOLS=(podman buildah runc mmdebstrap)
# Exit status when the tools are missing and cannot be installed here.
EXIT_NO_TOOLS=3

# The Debian base. passwd is not in the essential set, and the Dockerfile creates its user with it.
SUITE=bookworm
VARIANT=essential
BASE_PACKAGES=(openjdk-17-jre-headless ca-certificates passwd)
BASE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() {
  echo "image.sh: $*" >&2
}

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --debian-base) DEBIAN_BASE=true ;;
    --tag) TAG=${2:?--tag needs a name}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) say "unknown argument $1"; usage >&2; exit 2 ;;
  esac
  shift
done

missing_tools() {
  local tool missing=()
  for tool in "${TOOLS[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  echo "${missing[*]:-}"
}

ensure_tools() {
  local missing
  missing=$(missing_tools)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "missing: $missing; installing ${TOOLS[*]} from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q "${TOOLS[@]}" >&2
    missing=$(missing_tools)
    [ -z "$missing" ] && return 0
    say "still missing after apt-get install: $missing"
    exit "$EXIT_NO_TOOLS"
  fi
  say "missing tools: $missing; install them as root: apt-get install -y ${TOOLS[*]}"
  exit "$EXIT_NO_TOOLS"
}

write_containers_conf() {
  mkdir -p "$STATE_DIR"
  cat >"$CONTAINERS_CONF_FILE.new" <<'CONF'
# Written by scripts/image.sh. crun cannot set rlimits on this kind of host, so podman runs runc;
# runc cannot raise them either, so podman asks for none (the container inherits the host's).
[containers]
default_ulimits = []

[engine]
runtime = "runc"
CONF
  mv "$CONTAINERS_CONF_FILE.new" "$CONTAINERS_CONF_FILE"
  export CONTAINERS_CONF=$CONTAINERS_CONF_FILE
}

# The base image's name: a hash of what goes into it, so a changed package list makes a new one.
debian_base_name() {
  local key
  key=$(printf '%s\n' "$SUITE" "$VARIANT" "${BASE_PACKAGES[@]}" | sha256sum | cut -c1-12)
  echo "localhost/kafscale-proxy-base:$SUITE-$key"
}

ensure_debian_base() {
  local base=$1 work
  if podman image exists "$base"; then
    say "reusing the Debian base $base"
    return 0
  fi
  work=$(mktemp -d "$STATE_DIR/base.XXXXXX")
  say "making the Debian base $base ($SUITE, ${BASE_PACKAGES[*]}; about a minute and a half)"
  local started=$SECONDS
  if ! mmdebstrap --quiet --variant="$VARIANT" --include="$(IFS=,; echo "${BASE_PACKAGES[*]}")" \
      "$SUITE" "$work/rootfs.tar" >&2; then
    rm -rf "$work"
    say "mmdebstrap failed"
    exit 1
  fi
  podman import --quiet --change "ENV PATH=$BASE_PATH" "$work/rootfs.tar" "$base" >/dev/null
  rm -rf "$work"
  say "made the Debian base in $((SECONDS - started)) s"
}

main() {
  ensure_tools
  if [ ! -f "$ROOT/$JAR" ]; then
    say "$JAR is missing: build it first with ./mvnw -B -DskipTests -pl proxy-app -am package"
    exit 1
  fi
  write_containers_conf
  # One build at a time on a machine: two would make the same base twice and race on the tag.
  exec 9>"$STATE_DIR/lock"
  flock 9

  local build_args=()
  if [ "$DEBIAN_BASE" = true ]; then
    local base
    base=$(debian_base_name)
    ensure_debian_base "$base"
    build_args+=(--build-arg "RUNTIME_IMAGE=$base")
  fi

  local previous
  previous=$(podman image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
  local started=$SECONDS
  # chroot isolation: RUN steps need no user namespace or runtime of their own. docker format:
  # the OCI image format has no HEALTHCHECK, and buildah would drop it.
  buildah bud --quiet --isolation chroot --format docker --target prebuilt "${build_args[@]}" \
    --tag "$TAG" --file "$ROOT/Dockerfile" "$ROOT" >/dev/null
  say "built $TAG in $((SECONDS - started)) s"

  local id size
  id=$(podman image inspect --format '{{.Id}}' "$TAG")
  size=$(podman image inspect --format '{{.Size}}' "$TAG")
  # The image this tag named before is now unnamed: remove it unless a container still uses it.
  if [ -n "$previous" ] && [ "$previous" != "$id" ]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
  fi
  echo "image: $TAG"
  echo "id: $id"
  echo "size: $size bytes ($((size / 1000000)) MB)"
  echo "containers.conf: $CONTAINERS_CONF_FILE"
}

main
