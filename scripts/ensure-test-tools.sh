#!/usr/bin/env bash
# Makes sure the native tools that the integration tests start as processes are installed:
#   etcd (Debian package etcd-server; etcd-client brings etcdctl for debugging), kcat,
#   yamllint (deploy-tests lints the rendered Helm chart with it), and curl and jq (the demo's
#   test runs the shell lines the demo prints).
# Idempotent: does nothing when all are present. As root with apt-get it installs what is
# missing; otherwise it prints the command to run and fails, so the build stops with a clear
# message instead of tests failing one by one.
set -euo pipefail

PACKAGES=(etcd-server etcd-client kcat yamllint curl jq)

have() {
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ]
}

missing_tools() {
  local missing=()
  have etcd || missing+=(etcd)
  have kcat || missing+=(kcat)
  have yamllint || missing+=(yamllint)
  have curl || missing+=(curl)
  have jq || missing+=(jq)
  echo "${missing[*]:-}"
}

missing=$(missing_tools)
if [ -z "$missing" ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-test-tools: missing: $missing; installing ${PACKAGES[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q "${PACKAGES[@]}"
  missing=$(missing_tools)
  if [ -z "$missing" ]; then
    exit 0
  fi
  echo "ensure-test-tools: still missing after apt-get install: $missing" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-test-tools: missing test tools: $missing
The integration tests need them. Install as root:
  apt-get update && apt-get install -y ${PACKAGES[*]}
(or build with -DskipTests)
MSG
exit 1
