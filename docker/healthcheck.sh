#!/usr/bin/env bash
# The image's HEALTHCHECK: healthy while /readyz on the proxy's health listener answers 200,
# that is while the proxy can route. Plain bash (/dev/tcp), so the image needs no curl.
set -euo pipefail

address="${KAFSCALE_PROXY_HEALTH_ADDR:-}"
if [ -z "$address" ]; then
  echo "healthcheck: KAFSCALE_PROXY_HEALTH_ADDR is not set, so there is no health listener" >&2
  exit 1
fi
port="${address##*:}"
host="${address%:*}"
if [ -z "$host" ] || [ "$host" = "0.0.0.0" ]; then
  host=127.0.0.1
fi

if ! { exec 3<>"/dev/tcp/${host}/${port}"; } 2>/dev/null; then
  echo "healthcheck: nothing listens on ${host}:${port}" >&2
  exit 1
fi
printf 'GET /readyz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&3
status_line=""
read -r -t 4 status_line <&3 || true
case "$status_line" in
  "HTTP/1."?" 200 "*) exit 0 ;;
  *)
    echo "healthcheck: /readyz answered '${status_line%$'\r'}'" >&2
    exit 1
    ;;
esac
