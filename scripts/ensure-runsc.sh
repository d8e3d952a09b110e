#!/usr/bin/env bash
# Makes sure the local engine can run sandboxes under gVisor: installs
# Debian's runsc when missing (as root) and registers it with dockerd as the
# runtime "runsc", with --network=none (gVisor's own network stack is not
# used: sandboxes that need no network get none), then reloads dockerd.
set -euo pipefail

config=/etc/docker/daemon.json
pidfile=/var/run/docker.pid

registered() { docker info -f '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }

if registered; then
  echo "runsc: registered with the engine"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "runsc: the engine has no runtime \"runsc\", and registering it needs root:" >&2
  echo "       install Debian's runsc and add it to $config (see scripts/ensure-runsc.sh)" >&2
  exit 1
fi
if ! command -v runsc >/dev/null; then
  echo "runsc: installing Debian's runsc"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null
fi

runsc_path="$(command -v runsc)"
mkdir -p "$(dirname "$config")"
if [ -s "$config" ]; then
  # Merge into the existing configuration, keeping everything else.
  python3 - "$config" "$runsc_path" <<'PY'
import json, sys
path, runsc = sys.argv[1], sys.argv[2]
with open(path) as f:
    cfg = json.load(f)
cfg.setdefault("runtimes", {})["runsc"] = {"path": runsc, "runtimeArgs": ["--network=none"]}
with open(path, "w") as f:
    json.dump(cfg, f, indent=2)
    f.write("\n")
PY
else
  cat >"$config" <<JSON
{
  "runtimes": {
    "runsc": {"path": "$runsc_path", "runtimeArgs": ["--network=none"]}
  }
}
JSON
fi

echo "runsc: registered in $config; reloading dockerd"
kill -HUP "$(cat "$pidfile")"
for _ in $(seq 1 30); do
  if registered; then
    echo "runsc: registered with the engine"
    exit 0
  fi
  sleep 1
done
echo "runsc: dockerd did not pick up the runtime; see its log" >&2
exit 1
