#!/usr/bin/env bash
# Fault test of scripts/engines.sh's start: an engine whose process runs
# but that is slow to answer (here frozen for a while, as a loaded machine
# slows one) is waited for and left running, never stopped and started
# again under the tests that use it; one whose process is gone is started
# again, and `engines.sh running` tells the two apart. It runs on a
# registry of its own (its own state directory and port), never on the
# engines the passes use:
#
#   scripts/test-engines.sh
#
# Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "FAIL: $*" >&2; exit 1; }
SANDBOX_ENGINES_STATE="$(mktemp -d)"
export SANDBOX_ENGINES_STATE SANDBOX_REGISTRY_PORT="${SANDBOX_TEST_ENGINES_PORT:-25099}"
trap 'scripts/engines.sh stop registry >/dev/null 2>&1 || true; rm -rf "$SANDBOX_ENGINES_STATE"' EXIT
pidfile="$SANDBOX_ENGINES_STATE/registry/registry.pid"

scripts/engines.sh start registry >/dev/null
scripts/engines.sh running registry || fail "engines.sh running does not find the registry just started"
pid="$(cat "$pidfile")"

echo "== a registry frozen for 10 s while engines.sh starts it"
kill -STOP "$pid"
scripts/engines.sh start registry >"$SANDBOX_ENGINES_STATE/start.log" 2>&1 &
starter=$!
sleep 10
kill -CONT "$pid"
wait "$starter" || fail "the start of a registry slow to answer failed: $(cat "$SANDBOX_ENGINES_STATE/start.log")"
[ "$(cat "$pidfile")" = "$pid" ] && kill -0 "$pid" ||
  fail "the start stopped the slow registry $pid and started another: $(cat "$SANDBOX_ENGINES_STATE/start.log")"
grep -q "slow to answer" "$SANDBOX_ENGINES_STATE/start.log" ||
  fail "the start did not say it waited: $(cat "$SANDBOX_ENGINES_STATE/start.log")"

echo "== a registry whose process is gone"
kill -KILL "$pid"
for _ in $(seq 1 20); do [ -e "/proc/$pid" ] || break; sleep 0.5; done
if scripts/engines.sh running registry; then fail "engines.sh running finds the killed registry $pid"; fi
scripts/engines.sh start registry >/dev/null
[ "$(cat "$pidfile")" != "$pid" ] || fail "the start did not start the registry again"
scripts/engines.sh running registry || fail "engines.sh running does not find the registry started again"
echo "== engines.sh: a slow engine left running, a gone one started again: passed"
