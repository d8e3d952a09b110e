#!/usr/bin/env bash
# Makes sure a Docker engine answers. When none does and the engine is meant
# to be local, installs Debian's docker.io (and runsc) if missing (as root),
# clears what a crashed engine left (a zombie or unanswering dockerd, a
# stale pid file) and starts dockerd in the background, retrying: a first
# start can time out waiting for containerd.
#
# An engine that answers is left exactly as it is: this script never
# restarts or reconfigures it. One it starts itself gets the machine's
# configuration (/etc/docker/daemon.json) with gVisor's runsc registered as
# the runtime "runsc" (--network=none), so that the gVisor tests need no
# change to the engine later.
#
# By default it manages the machine's engine (/var/run/docker.pid). The
# throwaway engines of the tests (scripts/engines.sh) use it with:
#   SANDBOX_DOCKERD_PIDFILE    their pid file
#   SANDBOX_DOCKERD_EXEC_ROOT  their exec root (where their containerd runs)
#   SANDBOX_DOCKERD_ARGS       their dockerd arguments (data root, socket, ...)
#   SANDBOX_DOCKERD_LOG        their log
#   DOCKER_HOST                their socket
set -euo pipefail

# The dockerd started here must not work in the caller's directory (a
# clone, into which runsc would write).
cd /
log="${SANDBOX_DOCKERD_LOG:-/var/log/sandbox-dockerd.log}"
pidfile="${SANDBOX_DOCKERD_PIDFILE:-/var/run/docker.pid}"
exec_root="${SANDBOX_DOCKERD_EXEC_ROOT:-/var/run/docker}"
attempts="${SANDBOX_ENGINE_ATTEMPTS:-3}"
wait_seconds="${SANDBOX_ENGINE_WAIT:-40}"
# The machine's engine is the one without a pid file of its own.
own_engine=$([ -z "${SANDBOX_DOCKERD_PIDFILE:-}" ] && echo 1 || echo 0)

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

# engine_dockerds lists the dockerd in the pid file and every other dockerd
# of the same engine: for the machine's engine, those started without a pid
# file of their own; for another, those started with its pid file. Every
# other engine is left alone.
engine_dockerds() {
  # dockerd writes its pid file without a newline.
  echo "$(cat "$pidfile" 2>/dev/null || true)"
  local pid args
  for pid in $(pgrep -x dockerd || true); do
    args="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
    if [ "$own_engine" = 1 ] && [[ "$args" != *--pidfile* ]]; then
      echo "$pid"
    elif [ "$own_engine" = 0 ] && [[ "$args" == *"--pidfile $pidfile "* ]]; then
      echo "$pid"
    fi
  done
}

# stop_engine kills this engine's dockerd and the containerd it started,
# whatever state they are in, and removes the pid file.
stop_engine() {
  local pids
  pids="$(engine_dockerds | sort -u)"
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
  pkill -KILL -f "containerd --config $exec_root/containerd/containerd.toml" 2>/dev/null || true
  rm -f "$pidfile" "$exec_root/containerd/containerd.pid"
}

# install_missing PACKAGE COMMAND...: installs Debian's PACKAGE when one
# of the commands is missing (an engine installed some other way is used
# as it is).
install_missing() {
  local pkg="$1" cmd
  shift
  for cmd in "$@"; do
    if ! command -v "$cmd" >/dev/null; then
      echo "engine: installing Debian's $pkg"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
      return
    fi
  done
}

# machine_engine_args writes the configuration the machine's engine starts
# with: /etc/docker/daemon.json, with runsc added to its runtimes. It lives
# in /run, which lasts as long as the engine started here, and not in the
# clone, which may go first.
machine_engine_args() {
  local config=/run/tfsandbox-engine/daemon.json
  mkdir -p "$(dirname "$config")"
  python3 - "$config" "$(command -v runsc)" <<'PY'
import json, sys
out, runsc = sys.argv[1], sys.argv[2]
try:
    with open("/etc/docker/daemon.json") as f:
        cfg = json.load(f)
except FileNotFoundError:
    cfg = {}
cfg.setdefault("runtimes", {}).setdefault("runsc", {"path": runsc, "runtimeArgs": ["--network=none"]})
with open(out, "w") as f:
    json.dump(cfg, f, indent=2)
    f.write("\n")
PY
  echo "--config-file $config"
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

install_missing docker.io dockerd docker
args="${SANDBOX_DOCKERD_ARGS:-}"
if [ "$own_engine" = 1 ]; then
  install_missing runsc runsc
  args="$(machine_engine_args)"
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
  # shellcheck disable=SC2086 # the arguments are words
  setsid nohup dockerd $args >"$log" 2>&1 </dev/null &
  if wait_for_engine; then
    echo "engine: answering"
    exit 0
  fi
  echo "engine: dockerd did not answer within ${wait_seconds} s. Last lines of $log:" >&2
  tail -n 10 "$log" >&2 || true
done
echo "engine: no Docker engine after $attempts attempts; see $log" >&2
exit 1
