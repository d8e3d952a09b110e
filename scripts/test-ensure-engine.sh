#!/usr/bin/env bash
# Fault test of scripts/ensure-engine.sh: it must bring an engine back after
# its dockerd became a zombie (killed, with a parent that never reaps it, so
# the pid file names a process that `kill -0` still finds) and after it
# froze (SIGSTOP). It runs on the throwaway engine of scripts/engines.sh,
# never on the machine's engine, and leaves it running:
#
#   scripts/engines.sh with-scratch scripts/test-ensure-engine.sh
#
# Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "FAIL: $*" >&2; exit 1; }
: "${SANDBOX_DOCKERD_PIDFILE:?run this through scripts/engines.sh with-scratch, on the throwaway engine}"
[ "$SANDBOX_DOCKERD_PIDFILE" != /var/run/docker.pid ] || fail "this would kill the machine's engine"
export SANDBOX_ENGINE_WAIT=15
pidfile="$SANDBOX_DOCKERD_PIDFILE"
log="$SANDBOX_DOCKERD_LOG"
answers() { timeout 10 docker info >/dev/null 2>&1; }
machine_engine="$(cat /var/run/docker.pid 2>/dev/null || true)"

scripts/ensure-engine.sh >/dev/null

# The engine's dockerd, restarted under a parent that never reaps it.
old="$(cat "$pidfile")"
kill -TERM "$old"
for _ in $(seq 1 30); do [ -e "/proc/$old" ] || break; sleep 1; done
# shellcheck disable=SC2016 # expanded by the inner shell
(cd / && exec setsid nohup bash -c 'dockerd $SANDBOX_DOCKERD_ARGS >"$0" 2>&1 & exec sleep 900' "$log" >/dev/null 2>&1 </dev/null) &
reaper=$!
for _ in $(seq 1 60); do answers && break; sleep 1; done
answers || fail "dockerd under a non-reaping parent did not start"
zombie="$(cat "$pidfile")"
kill -KILL "$zombie"
sleep 1
grep -q '^State:.*Z' "/proc/$zombie/status" || fail "dockerd $zombie did not become a zombie"
kill -0 "$zombie" || fail "kill -0 does not find the zombie, so this test would prove nothing"

echo "== zombie dockerd (pid $zombie)"
out="$(scripts/ensure-engine.sh 2>&1)" || fail "ensure-engine.sh gave up after a zombie dockerd: $out"
echo "$out"
echo "$out" | grep -q zombie || fail "ensure-engine.sh did not say the dockerd was a zombie"
answers || fail "no engine after ensure-engine.sh"
kill "$reaper" 2>/dev/null || true

echo "== frozen dockerd"
frozen="$(cat "$pidfile")"
kill -STOP "$frozen"
out="$(scripts/ensure-engine.sh 2>&1)" || fail "ensure-engine.sh gave up after a frozen dockerd: $out"
echo "$out"
[ "$(cat "$pidfile")" != "$frozen" ] || fail "the frozen dockerd $frozen is still the engine"
answers || fail "no engine after ensure-engine.sh"
[ "$(cat /var/run/docker.pid 2>/dev/null || true)" = "$machine_engine" ] ||
  fail "the machine's engine changed (pid $machine_engine before)"
echo "PASS: ensure-engine.sh recovers from a zombie and from a frozen dockerd, and the machine's engine is untouched"
