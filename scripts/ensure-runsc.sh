#!/usr/bin/env bash
# Checks that the local engine can run sandboxes under gVisor: that it has
# the runtime "runsc". It never changes the engine: an engine that
# scripts/ensure-engine.sh started has runsc from its start, and one the
# user runs is the user's to configure. Installs Debian's runsc (as root)
# when it is missing, for the test engines that register it themselves.
set -euo pipefail

registered() { docker info -f '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }

if ! command -v runsc >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "runsc: gVisor's runsc is not installed: sudo apt-get install runsc" >&2
    exit 1
  fi
  echo "runsc: installing Debian's runsc"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null
fi

if registered; then
  echo "runsc: registered with the engine"
  exit 0
fi
cat >&2 <<EOF
runsc: the engine at ${DOCKER_HOST:-the local socket} has no runtime "runsc", which the gVisor
       tests need. The tests never reconfigure an engine they did not start: register it
       yourself, in /etc/docker/daemon.json:

         { "runtimes": { "runsc": { "path": "$(command -v runsc)", "runtimeArgs": ["--network=none"] } } }

       then reload the engine (sudo kill -HUP \$(cat /var/run/docker.pid)), which leaves
       running containers alone. See docs/guides/gvisor.md.
EOF
exit 1
