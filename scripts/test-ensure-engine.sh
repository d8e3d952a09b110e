#!/usr/bin/env bash
# Fault test of scripts/ensure-engine.sh against the real local engine: it
# must bring the engine back after dockerd became a zombie (killed, with a
# parent that never reaps it, so the pid file names a process that
# `kill -0` still finds) and after dockerd froze (SIGSTOP). Leaves the
# engine running. Needs root; restarts the local engine, so run it before
# the acceptance tests, not beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
export SANDBOX_ENGINE_WAIT=15
pidfile=/var/run/docker.pid
fail() { echo "FAIL: $*" >&2; exit 1; }
answers() { timeout 10 docker info >/dev/null 2>&1; }

scripts/ensure-engine.sh >/dev/null

# The engine's dockerd, restarted under a parent that never reaps it.
old="$(cat "$pidfile")"
kill -TERM "$old"
for _ in $(seq 1 30); do [ -e "/proc/$old" ] || break; sleep 1; done
setsid nohup bash -c 'dockerd >/var/log/sandbox-dockerd.log 2>&1 & exec sleep 900' >/dev/null 2>&1 </dev/null &
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
echo "PASS: ensure-engine.sh recovers from a zombie and from a frozen dockerd"
