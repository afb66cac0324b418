#!/usr/bin/env bash
# Makes sure the native tools that the integration tests start as processes are installed:
#   etcd (Debian package etcd-server; etcd-client brings etcdctl for debugging), kcat,
#   yamllint (deploy-tests lints the rendered Helm chart with it), curl and jq (the demo's
#   test runs the shell lines the demo prints), and the non-Java Kafka clients of
#   ClientFamiliesIT: Debian's python3-confluent-kafka and python3-kafka (for /usr/bin/python3),
#   golang-go with Sarama's sources (built offline in GOPATH mode), and kafkajs from npm;
#   softhsm2 and opensc (pkcs11-tool) for the PKCS#11 token of EncryptionPkcs11IT. Then
#   scripts/ensure-librdkafka.sh builds librdkafka 2.12.0 (once) for kcat and confluent-kafka.
# Idempotent: does nothing when all are present. As root with apt-get it installs what is
# missing; otherwise it prints the command to run and fails, so the build stops with a clear
# message instead of tests failing one by one.
#
# kafkajs goes into a folder this script owns (KAFSCALE_TEST_CLIENTS_DIR, default
# ~/.cache/kafscale-proxy/test-clients), never globally; testkit's ClientFamily finds it there,
# so the tests themselves never reach a registry.
set -euo pipefail

PACKAGES=(etcd-server etcd-client kcat yamllint curl jq
  python3-confluent-kafka python3-kafka golang-go golang-github-shopify-sarama-dev
  softhsm2 opensc)
KAFKAJS_VERSION=2.2.4
CLIENTS_DIR=${KAFSCALE_TEST_CLIENTS_DIR:-$HOME/.cache/kafscale-proxy/test-clients}
KAFKAJS_DIR=$CLIENTS_DIR/kafkajs-$KAFKAJS_VERSION

have() {
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ]
}

# Debian's python3 (the one on PATH may be another interpreter that cannot see dist-packages).
have_python_module() {
  [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import $1" >/dev/null 2>&1
}

missing_tools() {
  local missing=()
  have etcd || missing+=(etcd)
  have kcat || missing+=(kcat)
  have yamllint || missing+=(yamllint)
  have curl || missing+=(curl)
  have jq || missing+=(jq)
  have_python_module confluent_kafka || missing+=(python3-confluent-kafka)
  have_python_module kafka || missing+=(python3-kafka)
  have go || missing+=(golang-go)
  [ -d /usr/share/gocode/src/github.com/Shopify/sarama ] || missing+=(golang-github-shopify-sarama-dev)
  have softhsm2-util || missing+=(softhsm2)
  have pkcs11-tool || missing+=(opensc)
  echo "${missing[*]:-}"
}

ensure_kafkajs() {
  [ -f "$KAFKAJS_DIR/node_modules/kafkajs/package.json" ] && return 0
  if ! have npm; then
    echo "ensure-test-tools: npm not found: install Node.js (with npm) to run the kafkajs client" >&2
    return 1
  fi
  echo "ensure-test-tools: installing kafkajs@$KAFKAJS_VERSION into $KAFKAJS_DIR"
  mkdir -p "$KAFKAJS_DIR"
  # A private package.json so npm installs here and not into some parent folder's project.
  [ -f "$KAFKAJS_DIR/package.json" ] || echo '{"name":"kafscale-proxy-test-clients","private":true}' \
    >"$KAFKAJS_DIR/package.json"
  (cd "$KAFKAJS_DIR" && npm install --no-audit --no-fund --save-exact --loglevel=error "kafkajs@$KAFKAJS_VERSION")
}

install_missing_packages() {
  local missing
  missing=$(missing_tools)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-test-tools: missing: $missing; installing ${PACKAGES[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${PACKAGES[@]}"
    missing=$(missing_tools)
    [ -z "$missing" ] && return 0
    echo "ensure-test-tools: still missing after apt-get install: $missing" >&2
    return 1
  fi
  cat >&2 <<MSG
ensure-test-tools: missing test tools: $missing
The integration tests need them. Install as root:
  apt-get update && apt-get install -y ${PACKAGES[*]}
(or build with -DskipTests)
MSG
  return 1
}

# A librdkafka that cannot be built does not stop the build: kcat and confluent-kafka then run on
# Debian's librdkafka, and the tests that need the newer one skip and say why.
ensure_librdkafka() {
  bash "$(dirname "${BASH_SOURCE[0]}")/ensure-librdkafka.sh" && return 0
  echo "ensure-test-tools: WARNING: librdkafka was not built (see above); kcat and confluent-kafka" \
    "run on Debian's librdkafka, and their SCRAM and OAUTHBEARER tests will skip" >&2
}

install_missing_packages
ensure_kafkajs
ensure_librdkafka
