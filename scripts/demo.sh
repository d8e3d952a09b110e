#!/usr/bin/env bash
# Applies the quickstart example through the real terraform CLI with the
# provider that `make install` put into the local mirror (`terraform init`,
# no registry, no dev_overrides): it builds an image, starts a read-only
# sandbox from it, runs a setup command and lists the sandboxes. Then it
# shows from the engine that the sandbox has no network.
#   demo.sh           apply and show the proof
#   demo.sh destroy   tear the demo down
# Run through `make demo` / `make demo-destroy`, which install the provider
# and make sure an engine and the local image exist first.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$repo/.build/demo"
mkdir -p "$work"
cp -R "$repo/examples/quickstart/." "$work/"
# No CLI configuration: `make install` put the provider into the implicit
# local mirror, where `terraform init` finds it offline.
export TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
unset TF_CLI_CONFIG_FILE
tf() { terraform -chdir="$work" "$@"; }
# -upgrade: a reinstalled build of the same version has a new checksum.
tf init -input=false -upgrade >/dev/null

if [ "${1:-}" = destroy ]; then
  tf destroy -auto-approve -input=false
  rm -rf "$work"
  exit 0
fi

tf apply -auto-approve -input=false
name="$(tf output -raw sandbox_name)"
echo
echo "== Setup output: $(tf output -raw setup_output)"
echo "== Isolation of the engine's quickstart sandboxes: $(tf output -json isolation)"

echo
echo "== Proof from the engine that sandbox '$name' has no network =="
echo "network mode and attached networks (docker inspect):"
docker inspect -f '  {{.HostConfig.NetworkMode}}  {{range $n, $_ := .NetworkSettings.Networks}}{{$n}} {{end}}' "$name"
echo "network interfaces seen from inside (/proc/net/dev):"
docker exec "$name" cat /proc/net/dev | sed -n '3,$p' | cut -d: -f1 | sed 's/^ */  /'
interfaces="$(docker exec "$name" cat /proc/net/dev | sed -n '3,$p' | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
if [ "$interfaces" != "lo " ]; then
  echo "FAIL: the sandbox sees interfaces: $interfaces" >&2
  exit 1
fi
echo "OK: only loopback. Try: docker exec -it $name sh"
echo "Tear down with: make demo-destroy"
