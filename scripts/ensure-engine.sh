#!/usr/bin/env bash
# Makes sure a Docker engine answers. When none does and the engine is meant
# to be local, installs Debian's docker.io if it is missing (as root), clears
# what a crashed engine left (a zombie or unanswering dockerd, a stale pid
# file) and starts dockerd in the background, retrying: a first start can
# time out waiting for containerd.
set -euo pipefail

log="${SANDBOX_DOCKERD_LOG:-/var/log/sandbox-dockerd.log}"
pidfile=/var/run/docker.pid
attempts="${SANDBOX_ENGINE_ATTEMPTS:-3}"
wait_seconds="${SANDBOX_ENGINE_WAIT:-40}"

answers() { timeout 5 docker info >/dev/null 2>&1; }

# wait_for_engine waits up to wait_seconds for the engine to answer.
wait_for_engine() {
  local deadline=$((SECONDS + wait_seconds))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if answers; then return 0; fi
    sleep 1
  done
  return 1
}

# alive: the process exists and is not a zombie (kill -0 succeeds on one).
alive() {
  local state
  state="$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null || true)"
  [ -n "$state" ] && [ "$state" != Z ]
}

# local_dockerds lists the dockerd in the pid file and every dockerd started
# without a pid file of its own (another engine, with its own --pidfile, is
# left alone).
local_dockerds() {
  # dockerd writes its pid file without a newline.
  echo "$(cat "$pidfile" 2>/dev/null || true)"
  for pid in $(pgrep -x dockerd || true); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- '--pidfile' || echo "$pid"
  done
}

# stop_engine kills the local dockerd and the containerd it started, whatever
# state they are in, and removes the pid file.
stop_engine() {
  local pids
  pids="$(local_dockerds | sort -u)"
  for pid in $pids; do
    if alive "$pid"; then
      echo "engine: stopping dockerd (pid $pid), which does not answer"
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 10); do alive "$pid" || break; sleep 1; done
      kill -KILL "$pid" 2>/dev/null || true
    elif [ -e "/proc/$pid" ]; then
      echo "engine: dockerd (pid $pid) is a zombie; treating the engine as stopped"
    fi
  done
  pkill -KILL -f 'containerd --config /var/run/docker/containerd/containerd.toml' 2>/dev/null || true
  rm -f "$pidfile" /var/run/docker/containerd/containerd.pid
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

pid="$(cat "$pidfile" 2>/dev/null || true)"
if [ -n "$pid" ] && alive "$pid"; then
  echo "engine: dockerd (pid $pid) is running but not answering yet; waiting"
  if wait_for_engine; then
    echo "engine: answering"
    exit 0
  fi
fi

for attempt in $(seq 1 "$attempts"); do
  stop_engine
  echo "engine: starting dockerd, attempt $attempt of $attempts (log: $log)"
  setsid nohup dockerd >"$log" 2>&1 </dev/null &
  if wait_for_engine; then
    echo "engine: answering"
    exit 0
  fi
  echo "engine: dockerd did not answer within ${wait_seconds} s. Last lines of $log:" >&2
  tail -n 10 "$log" >&2 || true
done
echo "engine: no Docker engine after $attempts attempts; see $log" >&2
exit 1
