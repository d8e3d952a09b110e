#!/usr/bin/env bash
# Runs the unit and acceptance tests against each engine named in
# SANDBOX_TEST_ENGINES (default: local podman tls ssh): the local Docker
# engine, a second Docker engine that speaks only TLS, the local engine
# reached over SSH, and Podman. It starts the three test engines
# (scripts/engines.sh) and stops them when it ends, however it ends, unless
# SANDBOX_KEEP_ENGINES=1.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
engines="${SANDBOX_TEST_ENGINES:-local podman tls ssh}"
terraform="${TF_ACC_TERRAFORM_PATH:-$(command -v terraform || true)}"
[ -n "$terraform" ] || { echo "terraform is not on PATH" >&2; exit 1; }

stop() {
  [ "${SANDBOX_KEEP_ENGINES:-}" = 1 ] || scripts/engines.sh stop tls ssh podman
}
trap stop EXIT
# The connection tests reach the TLS engine and the SSH host in every run.
scripts/engines.sh start tls ssh
for e in $engines; do
  case "$e" in local | tls | ssh) ;; podman) scripts/engines.sh start podman ;;
  *) echo "unknown engine $e (local, tls, ssh, podman)" >&2; exit 1 ;;
  esac
done

failed=()
for e in $engines; do
  printf '\n== tests against the %s engine\n' "$e"
  start=$SECONDS
  # shellcheck disable=SC2046 # one VAR=value per line, none with spaces
  if env $(scripts/engines.sh env "$e") TF_ACC=1 TF_ACC_TERRAFORM_PATH="$terraform" \
    SANDBOX_TEST_IMAGE="${SANDBOX_TEST_IMAGE:-tfsandbox/busybox:latest}" \
    go test ./... -count=1 -timeout 20m; then
    echo "== $e: passed in $((SECONDS - start)) s"
  else
    echo "== $e: FAILED after $((SECONDS - start)) s"
    failed+=("$e")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "tests failed against: ${failed[*]}" >&2
  exit 1
fi
