#!/usr/bin/env bash
# Makes sure a Docker engine answers. When none does and the engine is meant
# to be local, installs Debian's docker.io if it is missing (as root) and
# starts dockerd in the background, clearing a stale pid file first.
set -euo pipefail

log="${SANDBOX_DOCKERD_LOG:-/var/log/sandbox-dockerd.log}"
pidfile=/var/run/docker.pid

answers() { docker info >/dev/null 2>&1; }

wait_for_engine() {
  for _ in $(seq 1 60); do
    if answers; then return 0; fi
    sleep 1
  done
  return 1
}

if command -v docker >/dev/null && answers; then
  echo "engine: answering at ${DOCKER_HOST:-the local socket}"
  exit 0
fi

if [ -n "${DOCKER_HOST:-}" ] && [[ "$DOCKER_HOST" != unix://* ]]; then
  echo "engine: nothing answers at DOCKER_HOST=$DOCKER_HOST; start the engine there, or unset DOCKER_HOST" >&2
  exit 1
fi

if [ "$(id -u)" != 0 ]; then
  echo "engine: no Docker engine answers, and starting one needs root." >&2
  echo "        Start it (sudo systemctl start docker, or sudo dockerd &) and make sure this user may use its socket." >&2
  exit 1
fi

if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
  echo "engine: installing Debian's docker.io"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

if [ -f "$pidfile" ]; then
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    echo "engine: dockerd (pid $pid) is running but not answering yet; waiting"
    if wait_for_engine; then exit 0; fi
    echo "engine: dockerd (pid $pid) does not answer; see $log" >&2
    exit 1
  fi
  echo "engine: removing stale $pidfile"
  rm -f "$pidfile"
fi

echo "engine: starting dockerd (log: $log)"
setsid nohup dockerd >"$log" 2>&1 </dev/null &

if wait_for_engine; then
  echo "engine: answering"
  exit 0
fi
echo "engine: dockerd did not answer within 60 s. Last lines of $log:" >&2
tail -n 20 "$log" >&2 || true
exit 1
