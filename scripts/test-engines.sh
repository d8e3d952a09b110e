#!/usr/bin/env bash
# Runs the unit and acceptance tests against each engine named in
# SANDBOX_TEST_ENGINES (default: local podman tls ssh tofu): the local
# Docker engine, Podman, a second Docker engine that speaks only TLS, the
# local engine reached over SSH, each under Terraform, and then ("tofu") the
# local engine under OpenTofu (SANDBOX_TOFU_PATH, built by `make tofu`). It
# starts the three test engines (scripts/engines.sh) and stops them when it
# ends, however it ends, unless SANDBOX_KEEP_ENGINES=1.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
engines="${SANDBOX_TEST_ENGINES:-local podman tls ssh tofu}"
terraform="${TF_ACC_TERRAFORM_PATH:-$(command -v terraform || true)}"
[ -n "$terraform" ] || { echo "terraform is not on PATH" >&2; exit 1; }
tofu="${SANDBOX_TOFU_PATH:-$repo/bin/tofu}"
[ -x "$tofu" ] || { echo "no OpenTofu at $tofu: build it with \`make tofu\`" >&2; exit 1; }
# Tests that run both CLIs find them here whatever the pass.
export SANDBOX_TOFU_PATH="$tofu" SANDBOX_TERRAFORM_PATH="$terraform"

stop() {
  [ "${SANDBOX_KEEP_ENGINES:-}" = 1 ] || scripts/engines.sh stop tls ssh podman
}
trap stop EXIT
# The connection tests reach the TLS engine and the SSH host in every run.
scripts/engines.sh start tls ssh
for e in $engines; do
  case "$e" in local | tls | ssh | tofu) ;; podman) scripts/engines.sh start podman ;;
  *) echo "unknown engine $e (local, tls, ssh, podman, tofu)" >&2; exit 1 ;;
  esac
done

failed=()
for e in $engines; do
  cli=(TF_ACC_TERRAFORM_PATH="$terraform")
  engine="$e"
  if [ "$e" = tofu ]; then
    # plugin-testing serves the provider as <host>/hashicorp/sandbox; under
    # OpenTofu an unqualified "sandbox" means registry.opentofu.org.
    cli=(TF_ACC_TERRAFORM_PATH="$tofu" TF_ACC_PROVIDER_HOST=registry.opentofu.org)
    engine=local
    printf '\n== tests against the local engine under OpenTofu (%s)\n' "$("$tofu" version | head -n 1)"
  else
    printf '\n== tests against the %s engine\n' "$e"
  fi
  start=$SECONDS
  # shellcheck disable=SC2046 # one VAR=value per line, none with spaces
  if env $(scripts/engines.sh env "$engine") TF_ACC=1 "${cli[@]}" \
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
