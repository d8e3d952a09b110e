#!/usr/bin/env bash
# Starts and stops the engines the acceptance suite runs against besides the
# local Docker engine, all on this machine and listening on loopback only:
#
#   tls     a second dockerd that speaks only TLS with client certificates,
#           on tcp://127.0.0.1:$SANDBOX_TLS_PORT, with its own data root,
#           exec root, pid file, containerd namespace and bridge interface
#   ssh     an OpenSSH server on 127.0.0.1:$SANDBOX_SSH_PORT whose far side is
#           the local engine's socket, with a generated host key and client key
#   podman  Podman's Docker-compatible API service on its own socket, as
#           root, with Podman's stock configuration
#   rootless the same service run by a normal user (tfsbpodman, with
#           subordinate IDs) on that user's socket, as most Podman users run it
#   scratch a throwaway dockerd on its own unix socket, with its own data
#           root, exec root, pid file, containerd namespace and bridge, for
#           the fault tests to kill and restart (never the machine's engine)
#   registry a private registry (Debian's docker-registry) on
#           127.0.0.1:$SANDBOX_REGISTRY_PORT that takes only a generated
#           user and password (htpasswd), empty until a test pushes to it;
#           plain HTTP on loopback, which the Docker engine allows, and which
#           the test Podman engines and the test cluster are told to allow
#
# Usage: engines.sh start NAME... | stop [NAME...] | env local|NAME
#        engines.sh running NAME... | with-scratch COMMAND...
#
# `env NAME` prints the variables that point the provider and the tests at
# that engine (DOCKER_HOST and friends, and for ssh a PATH whose `ssh` reads
# the generated client configuration, as a user's ~/.ssh/config would), and
# the SANDBOX_TEST_* variables that name the TLS engine and the SSH host for
# the connection tests; `env local` only the latter.
# Everything generated lives in .build/engines (or SANDBOX_ENGINES_STATE);
# starting needs root.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
state="${SANDBOX_ENGINES_STATE:-$repo/.build/engines}"
# The daemons started here must not work in the clone (runsc, for one,
# writes files into its working directory).
caller_dir="$PWD"
cd /
image="${SANDBOX_TEST_IMAGE:-tfsandbox/busybox:latest}"
tls_port="${SANDBOX_TLS_PORT:-23760}"
ssh_port="${SANDBOX_SSH_PORT:-22220}"
tls_bridge=tfsbtls0
tls_subnet=172.31.250.1/24
tls_root=/var/lib/tfsandbox-tls
tls_exec=/run/tfsandbox-tls
tls_pid=/run/tfsandbox-tls.pid
# The TLS engine's own socket on its host, which the provider's expiry
# warden mounts (the provider is told with SANDBOX_ENGINE_SOCKET).
tls_sock=/run/tfsandbox-tls-sock/docker.sock
podman_sock=/run/tfsandbox-podman/podman.sock
rootless_user=tfsbpodman
scratch_sock=/run/tfsandbox-scratch/docker.sock
scratch_bridge=tfsbscratch0
scratch_subnet=172.31.251.1/24
scratch_root=/var/lib/tfsandbox-scratch
scratch_exec=/run/tfsandbox-scratch-exec
scratch_pid=/run/tfsandbox-scratch.pid
registry_port="${SANDBOX_REGISTRY_PORT:-25000}"
registry_root=/var/lib/tfsandbox-registry

say() { echo "engines: $*"; }
die() { echo "engines: $*" >&2; exit 1; }

# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"

need_root() { [ "$(id -u)" = 0 ] || die "starting the $1 engine needs root"; }

# wait_until SECONDS COMMAND...: runs COMMAND every half second until it
# succeeds or SECONDS pass.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  return 1
}

alive() { [ -n "${1:-}" ] && [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# answers NAME CHECK...: whether the engine NAME answers CHECK. One that
# does not at once but whose process is alive (running NAME) is asked again
# for two minutes: an engine slowed by the tests beside it is in use, and a
# start never stops it for a slow answer (the benchmark starts the engines
# beside the passes; a restart of rootless Podman runs podman system
# migrate, which stops every container of the user).
answers() {
  local name="$1"
  shift
  "$@" >/dev/null 2>&1 && return 0
  running "$name" || return 1
  say "$name: running but slow to answer; asking again for up to two minutes"
  wait_until 120 "$@"
}

# running NAME: whether the engine's process that a start here began is
# alive, however slowly it answers.
running() {
  case "$1" in
  tls) alive "$(cat "$tls_pid" 2>/dev/null || true)" ;;
  ssh) alive "$(cat "$state/ssh/sshd.pid" 2>/dev/null || true)" ;;
  podman | rootless) alive "$(cat "$state/$1/service.pid" 2>/dev/null || true)" ;;
  registry) alive "$(cat "$state/registry/registry.pid" 2>/dev/null || true)" ;;
  scratch) alive "$(cat "$scratch_pid" 2>/dev/null || true)" ;;
  *) die "running: unknown engine $1" ;;
  esac
}

# stop_pid PIDFILE: stops the process in PIDFILE and waits for it to go.
stop_pid() {
  local pid
  pid="$(cat "$1" 2>/dev/null || true)"
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_until 20 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

# runtimes_config FILE: writes a dockerd configuration that registers gVisor
# as the runtime "runsc" without a network stack, and nothing else.
runtimes_config() {
  mkdir -p "$(dirname "$1")"
  printf '{"runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--network=none"]}}}\n' \
    "$(command -v runsc || echo /usr/bin/runsc)" >"$1"
}

# bridge NAME SUBNET: makes the bridge interface an engine of its own uses.
bridge() {
  ip link show "$1" >/dev/null 2>&1 || {
    ip link add name "$1" type bridge
    ip addr add "$2" dev "$1"
  }
  ip link set "$1" up
}

# stop_dockerd PIDFILE EXEC_ROOT BRIDGE: stops a test engine's dockerd, the
# containerd it started and its bridge.
stop_dockerd() {
  stop_pid "$1"
  pkill -KILL -f "containerd --config $2/containerd/containerd.toml" 2>/dev/null || true
  # The shims of its containers, which outlive a killed dockerd, and the
  # containers they run: killing a container's first process ends every
  # process in its PID namespace.
  local shim
  for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $2/containerd/" || true); do
    pkill -KILL -P "$shim" 2>/dev/null || true
    kill -KILL "$shim" 2>/dev/null || true
  done
  if ip link show "$3" >/dev/null 2>&1; then ip link delete "$3" || true; fi
}

# load_image ENV...: copies the test image from the local engine into the
# engine the environment names.
load_image() {
  local want
  want="$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null)" ||
    die "the local engine has no $image: run make image first"
  # Loaded again only when the engine lacks it or has another build: a
  # load beside a pass's builds FROM it is work for nothing.
  [ "$(env "$@" docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)" = "$want" ] && return 0
  docker save "$image" | env "$@" docker load -q >/dev/null
}

# --- TLS ---------------------------------------------------------------------

tls_env() {
  echo "DOCKER_HOST=tcp://127.0.0.1:$tls_port"
  echo "DOCKER_TLS_VERIFY=1"
  echo "DOCKER_CERT_PATH=$state/tls/client"
  echo "SANDBOX_ENGINE_SOCKET=$tls_sock"
}

# tls_certs makes a CA, a server certificate for 127.0.0.1
# (by address only: the tests reach it as localhost to see a name it lacks)
# and a client certificate, in the layouts dockerd and DOCKER_CERT_PATH use.
tls_certs() {
  local d="$state/tls"
  mkdir -p "$d/server" "$d/client"
  [ -s "$d/client/key.pem" ] && return 0
  (
    cd "$d"
    openssl ecparam -name prime256v1 -genkey -noout -out ca-key.pem
    openssl req -x509 -new -key ca-key.pem -subj /CN=tfsandbox-test-ca -days 30 -out ca.pem
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    for who in server client; do
      openssl ecparam -name prime256v1 -genkey -noout -out "$who/key.pem"
      openssl req -new -key "$who/key.pem" -subj "/CN=tfsandbox-test-$who" -out "$who.csr"
      openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 30 \
        -extfile "$who.ext" -out "$who/cert.pem" 2>/dev/null
      cp ca.pem "$who/ca.pem"
    done
    chmod 600 ca-key.pem server/key.pem client/key.pem
  )
}

tls_answers() { env $(tls_env) timeout 5 docker info; }

start_tls() {
  need_root tls
  if answers tls tls_answers; then say "tls: answering"; return 0; fi
  stop_tls
  tls_certs
  bridge "$tls_bridge" "$tls_subnet"
  runtimes_config "$state/tls/daemon.json"
  mkdir -p "$(dirname "$tls_sock")"
  local d="$state/tls/server"
  local attempt
  for attempt in 1 2 3; do
    say "tls: starting dockerd on tcp://127.0.0.1:$tls_port (attempt $attempt)"
    setsid dockerd --config-file "$state/tls/daemon.json" \
      --data-root "$tls_root" --exec-root "$tls_exec" --pidfile "$tls_pid" \
      --containerd-namespace tfsandbox-tls --containerd-plugins-namespace tfsandbox-tls-plugins \
      --iptables=false --ip6tables=false --bridge="$tls_bridge" \
      -H "tcp://127.0.0.1:$tls_port" -H "unix://$tls_sock" --tlsverify \
      --tlscacert "$d/ca.pem" --tlscert "$d/cert.pem" --tlskey "$d/key.pem" \
      >"$state/tls/dockerd.log" 2>&1 </dev/null &
    if wait_until 40 tls_answers; then break; fi
    stop_tls
    [ "$attempt" = 3 ] && { tail -n 20 "$state/tls/dockerd.log" >&2; die "tls: dockerd did not answer"; }
  done
  load_image $(tls_env)
  say "tls: answering, image loaded"
}

stop_tls() { stop_dockerd "$tls_pid" "$tls_exec" "$tls_bridge"; }

# --- SSH ---------------------------------------------------------------------

ssh_env() {
  echo "DOCKER_HOST=ssh://root@127.0.0.1:$ssh_port"
  echo "PATH=$state/ssh/bin:$PATH"
}

start_ssh() {
  need_root ssh
  install_packages openssh-server
  local d="$state/ssh"
  # An sshd started here and answering is left as it is, its files too: a
  # test beside this start may be logging in with them.
  if running ssh && [ -x "$d/bin/ssh" ] &&
    wait_until 60 "$d/bin/ssh" -o BatchMode=yes -p "$ssh_port" root@127.0.0.1 true; then
    say "ssh: answering; the far side is the local engine"
    return 0
  fi
  mkdir -p "$d/bin" /run/sshd
  [ -s "$d/host_key" ] || ssh-keygen -q -t ed25519 -N '' -C tfsandbox-test-host -f "$d/host_key"
  [ -s "$d/client_key" ] || ssh-keygen -q -t ed25519 -N '' -C tfsandbox-test-client -f "$d/client_key"
  cp "$d/client_key.pub" "$d/authorized_keys"
  echo "[127.0.0.1]:$ssh_port $(cut -d' ' -f1,2 "$d/host_key.pub")" >"$d/known_hosts"
  cat >"$d/sshd_config" <<EOF
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $d/host_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AllowStreamLocalForwarding yes
X11Forwarding no
MaxStartups 200:30:400
MaxSessions 200
EOF
  # What a user's ~/.ssh/config would say; the ssh on the suite's PATH
  # reads it.
  cat >"$d/ssh_config" <<EOF
Host 127.0.0.1
  IdentityFile $d/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $d/known_hosts
EOF
  printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$d/ssh_config" >"$d/bin/ssh"
  chmod 755 "$d/bin/ssh"
  if ! alive "$(cat "$d/sshd.pid" 2>/dev/null || true)"; then
    if ss -Hltn "sport = :$ssh_port" 2>/dev/null | grep -q .; then
      die "ssh: port $ssh_port is taken by another process (another clone's test sshd? stop it with its scripts/engines.sh stop ssh), or set SANDBOX_SSH_PORT"
    fi
    say "ssh: starting sshd on 127.0.0.1:$ssh_port"
    "$(command -v sshd || echo /usr/sbin/sshd)" -f "$d/sshd_config" -E "$d/sshd.log"
  fi
  wait_until 10 "$d/bin/ssh" -o BatchMode=yes -p "$ssh_port" root@127.0.0.1 true ||
    die "ssh: cannot log in to 127.0.0.1:$ssh_port; see $d/sshd.log"
  say "ssh: answering; the far side is the local engine"
}

stop_ssh() {
  stop_pid "$state/ssh/sshd.pid"
  # A test sshd another clone of this repository started.
  pkill -TERM -f 'sshd -f .*/engines/ssh/sshd_config' 2>/dev/null || true
}

# --- Podman ------------------------------------------------------------------

# podman_ulimits is the default_ulimits line the Podman guide tells users to
# set where Podman's own defaults exceed the host's hard limits.
podman_ulimits='default_ulimits = ["nofile=20000:20000", "nproc=20000:20000"]'

# podman_conf FILE: writes the stock containers.conf (Debian's, from
# /usr/share/containers) with the ulimits lowered, and nothing else changed.
podman_conf() {
  python3 - /usr/share/containers/containers.conf "$1" "$podman_ulimits" <<'PY'
import re, sys
src, out, line = sys.argv[1:]
try:
    conf = open(src).read()
except FileNotFoundError:
    conf = ""
if re.search(r"^\[containers\]", conf, re.M):
    conf = re.sub(r"^\[containers\][^\n]*\n", lambda m: m.group(0) + line + "\n", conf, count=1, flags=re.M)
else:
    conf = "[containers]\n" + line + "\n" + conf
open(out, "w").write(conf)
PY
}

podman_env() { echo "DOCKER_HOST=unix://$podman_sock"; }

# registries_conf FILE: writes Podman's stock registries.conf with the test
# registry marked insecure (plain HTTP on loopback), as a user does for a
# registry without TLS.
registries_conf() {
  { cat /etc/containers/registries.conf 2>/dev/null || true
    printf '\n[[registry]]\nlocation = "127.0.0.1:%s"\ninsecure = true\n' "$registry_port"
  } >"$1"
}

# serve_podman NAME DIR CHECK COMMAND...: runs Podman's API service with
# COMMAND in the background, its log and pid in DIR, and waits until CHECK
# answers.
serve_podman() {
  local name="$1" dir="$2" check="$3"
  shift 3
  "$@" >"$dir/service.log" 2>&1 </dev/null &
  echo $! >"$dir/service.pid"
  wait_until 30 "$check" || { tail -n 20 "$dir/service.log" >&2; die "$name: the service did not answer"; }
}

podman_answers() { env $(podman_env) timeout 5 docker version; }

# without_package_queries COMMAND...: runs COMMAND (a Podman service) in a
# mount namespace of its own, where the host's /usr/bin/dpkg is /bin/false.
# Podman 4.3 answers every /info and /version by asking dpkg which package
# holds conmon, its runtime and slirp4netns: some 0.4 CPU-seconds and half
# a second a request, and the provider asks once in every plan that makes
# or changes a sandbox. Over CI's two Podman passes that was some 550 of
# its CPU-seconds. Podman itself is as installed and configured; only the
# package fields of its answers read "Unknown", and the provider reads
# none of them. Mounts the engine makes stay in its namespace (their
# containers run there), and the host's reach it (a slave of /).
# SANDBOX_PODMAN_PACKAGE_QUERIES=1 leaves dpkg as it is.
without_package_queries() {
  if [ "${SANDBOX_PODMAN_PACKAGE_QUERIES:-}" = 1 ] || [ ! -x /usr/bin/dpkg ]; then
    (cd / && exec "$@")
    return
  fi
  unshare --mount --propagation slave -- sh -c \
    'mount --bind /bin/false /usr/bin/dpkg && mount --make-rshared / && cd / && exec "$@"' sh "$@"
}

# record_image_events NAME ENV...: records, for as long as the engine NAME
# (at ENV) runs, its image events (builds, tags and removals, with their
# times) in its image-events.txt: Podman keeps only its last megabyte of
# events. testacc.sh prints those of an image a failed test names.
record_image_events() {
  local dir="$state/$1"
  shift
  alive "$(cat "$dir/events.pid" 2>/dev/null || true)" && return 0
  env "$@" setsid docker events --since "$(date +%s)" --filter type=image \
    --format '{{.Time}} {{.Action}} {{.Actor.ID}} {{index .Actor.Attributes "name"}}' \
    >>"$dir/image-events.txt" 2>&1 </dev/null &
  echo $! >"$dir/events.pid"
}

start_podman() {
  need_root podman
  install_packages podman catatonit
  local d="$state/podman"
  mkdir -p "$d" "$(dirname "$podman_sock")"
  # Podman as Debian installs it: its stock configuration, with only the
  # documented change, the default ulimits lowered below this machine's hard
  # limits (the Podman guide says so). CONTAINERS_CONF replaces the stock
  # files, so it names a copy of them with that one line added, rather than
  # changing the machine's own /etc/containers.
  podman_conf "$d/containers.conf"
  registries_conf "$d/registries.conf"
  if answers podman podman_answers; then say "podman: answering"; else
    stop_podman
    say "podman: starting the API service on unix://$podman_sock"
    serve_podman podman "$d" podman_answers \
      without_package_queries env CONTAINERS_CONF="$d/containers.conf" CONTAINERS_REGISTRIES_CONF="$d/registries.conf" \
      setsid podman system service --time=0 "unix://$podman_sock"
  fi
  load_image $(podman_env)
  record_image_events podman $(podman_env)
  say "podman: answering, image loaded"
}

stop_podman() {
  stop_pid "$state/podman/events.pid"
  stop_pid "$state/podman/service.pid"
  pkill -TERM -f "podman system service --time=0 unix://$podman_sock" 2>/dev/null || true
  rm -f "$podman_sock"
}

# --- rootless Podman ---------------------------------------------------------

rootless_dir() { echo "/run/user/$(id -u "$rootless_user")"; }
rootless_env() { echo "DOCKER_HOST=unix://$(rootless_dir)/podman/podman.sock"; }
rootless_answers() { env $(rootless_env) timeout 5 docker version; }

# rootless_command sets rootless to the command that runs the words after
# it as the rootless user, in its own environment; as_rootless COMMAND...
# runs COMMAND so.
rootless_command() {
  rootless=(runuser -u "$rootless_user" -- env HOME="$(getent passwd "$rootless_user" | cut -d: -f6)"
    XDG_RUNTIME_DIR="$(rootless_dir)" PATH=/usr/local/bin:/usr/bin:/bin)
}
as_rootless() { rootless_command && (cd / && "${rootless[@]}" "$@"); }

# start_rootless makes the user (with subordinate IDs, as useradd gives
# them) and starts its API service. The user's own containers.conf lowers
# the default ulimits, as the Podman guide says, and its storage.conf names
# the overlay driver, as the storage.conf of Debian's containers-storage
# package (which a Podman installed with its recommended packages has)
# does; nothing else is set.
start_rootless() {
  need_root rootless
  install_packages podman catatonit uidmap slirp4netns
  if ! id "$rootless_user" >/dev/null 2>&1; then
    say "rootless: adding the user $rootless_user"
    useradd --create-home --shell /usr/sbin/nologin "$rootless_user"
  fi
  grep -q "^$rootless_user:" /etc/subuid || usermod --add-subuids 200000-265535 "$rootless_user"
  grep -q "^$rootless_user:" /etc/subgid || usermod --add-subgids 200000-265535 "$rootless_user"
  local dir home
  dir="$(rootless_dir)" home="$(getent passwd "$rootless_user" | cut -d: -f6)"
  install -d -m 700 -o "$rootless_user" -g "$rootless_user" "$dir" "$dir/podman"
  install -d -o "$rootless_user" -g "$rootless_user" "$home/.config" "$home/.config/containers"
  printf '[containers]\n%s\n' "$podman_ulimits" >"$home/.config/containers/containers.conf"
  registries_conf "$home/.config/containers/registries.conf"
  # Without a storage.conf, rootless Podman 4 falls back to vfs, which
  # copies an image's whole tree for every container and build step: the
  # rootless pass ran three to six times as long as rootful Podman's.
  printf '[storage]\ndriver = "overlay"\n' >"$home/.config/containers/storage.conf"
  chown "$rootless_user:" "$home/.config/containers/containers.conf" "$home/.config/containers/registries.conf" \
    "$home/.config/containers/storage.conf"
  mkdir -p "$state/rootless"
  # What a systemd host has and this machine may not: / as a shared mount
  # (rootless Podman's network namespace mounts through it) and a tun
  # device every user may open (slirp4netns, for sandboxes with a network).
  if [ "$(findmnt -no PROPAGATION /)" = private ]; then mount --make-rshared /; fi
  chmod 0666 /dev/net/tun
  if answers rootless rootless_answers; then say "rootless: answering"; else
    stop_rootless
    # The test user's store, made by a run before with another driver, is
    # made again: Podman refuses a store of another driver. Only when
    # Podman says so (it names another driver, or refuses the store's):
    # the reset removes every container and image, and a podman info that
    # failed for another reason proves nothing.
    local driver reset=""
    if driver="$(as_rootless podman info --format '{{.Store.GraphDriverName}}' 2>"$state/rootless/info.err")"; then
      [ "$driver" = overlay ] || reset="it has the driver $driver"
    elif grep -q 'graph driver.*does not match\|database configuration mismatch' "$state/rootless/info.err"; then
      reset="$(head -n 1 "$state/rootless/info.err")"
    fi
    if [ -n "$reset" ]; then
      say "rootless: making the test user's store again, with the overlay driver: $reset"
      as_rootless podman system reset --force >/dev/null 2>&1 || true
    fi
    # A pause process left from before would keep the old mounts.
    as_rootless podman system migrate >/dev/null 2>&1 || true
    say "rootless: starting the API service of $rootless_user on $(rootless_env | cut -d= -f2)"
    rootless_command
    serve_podman rootless "$state/rootless" rootless_answers \
      without_package_queries "${rootless[@]}" setsid podman system service --time=0 "unix://$dir/podman/podman.sock"
  fi
  load_image $(rootless_env)
  record_image_events rootless $(rootless_env)
  say "rootless: answering, image loaded"
}

stop_rootless() {
  stop_pid "$state/rootless/events.pid"
  stop_pid "$state/rootless/service.pid"
  if id "$rootless_user" >/dev/null 2>&1; then
    pkill -TERM -u "$rootless_user" -f "podman system service" 2>/dev/null || true
  fi
}

# --- scratch -----------------------------------------------------------------

scratch_env() {
  echo "DOCKER_HOST=unix://$scratch_sock"
  echo "SANDBOX_TEST_DOCKERD_PIDFILE=$scratch_pid"
}

# with_scratch_dockerd COMMAND...: runs COMMAND with scripts/ensure-engine.sh's
# settings for the throwaway engine, and DOCKER_HOST at it.
with_scratch_dockerd() {
  DOCKER_HOST="unix://$scratch_sock" \
    SANDBOX_DOCKERD_PIDFILE="$scratch_pid" \
    SANDBOX_DOCKERD_EXEC_ROOT="$scratch_exec" \
    SANDBOX_DOCKERD_LOG="$state/scratch/dockerd.log" \
    SANDBOX_DOCKERD_ARGS="--config-file $state/scratch/daemon.json --data-root $scratch_root \
--exec-root $scratch_exec --pidfile $scratch_pid --containerd-namespace tfsandbox-scratch \
--containerd-plugins-namespace tfsandbox-scratch-plugins --iptables=false --ip6tables=false \
--bridge=$scratch_bridge -H unix://$scratch_sock" \
    "$@"
}

# start_scratch starts the throwaway engine, or brings it back after a
# fault test killed or froze it (scripts/ensure-engine.sh recovers a zombie
# or frozen dockerd), and loads the test image into it.
start_scratch() {
  need_root scratch
  mkdir -p "$state/scratch" "$(dirname "$scratch_sock")"
  runtimes_config "$state/scratch/daemon.json"
  bridge "$scratch_bridge" "$scratch_subnet"
  with_scratch_dockerd "$repo/scripts/ensure-engine.sh" | sed 's/^engine:/engines: scratch:/'
  if ! env $(scratch_env) docker image inspect "$image" >/dev/null 2>&1; then
    load_image $(scratch_env)
  fi
  say "scratch: answering at unix://$scratch_sock"
}

stop_scratch() { stop_dockerd "$scratch_pid" "$scratch_exec" "$scratch_bridge"; }

# --- registry ----------------------------------------------------------------

# registry_answers: the registry started here (its pid alive) asks for
# credentials; another server on the port is not taken for it.
registry_answers() {
  alive "$(cat "$state/registry/registry.pid" 2>/dev/null || true)" &&
    [ "$(timeout 5 curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$registry_port/v2/")" = 401 ]
}

start_registry() {
  need_root registry
  install_packages docker-registry apache2-utils curl
  local d="$state/registry"
  mkdir -p "$d" "$registry_root"
  [ -s "$d/password" ] || head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$d/password"
  htpasswd -Bbc "$d/htpasswd" tfsandbox "$(cat "$d/password")" 2>/dev/null
  cat >"$d/config.yml" <<YML
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $registry_root
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$registry_port
auth:
  htpasswd:
    realm: tfsandbox-test
    path: $d/htpasswd
YML
  if answers registry registry_answers; then say "registry: answering"; return; fi
  stop_registry
  say "registry: starting on http://127.0.0.1:$registry_port"
  setsid docker-registry serve "$d/config.yml" >"$d/registry.log" 2>&1 </dev/null &
  echo $! >"$d/registry.pid"
  wait_until 30 registry_answers || { tail -n 20 "$d/registry.log" >&2; die "registry: it did not answer"; }
  say "registry: answering, asking for credentials"
}

stop_registry() {
  stop_pid "$state/registry/registry.pid"
  pkill -TERM -f "docker-registry serve $state/registry/config.yml" 2>/dev/null || true
}

registry_env() { :; }

# test_env names the stock rootful Podman, the TLS engine and the SSH host
# for the tests of several engines and of connections, whichever engine the
# suite runs against.
test_env() {
  echo "SANDBOX_TEST_PODMAN_HOST=unix://$podman_sock"
  echo "SANDBOX_TEST_TLS_HOST=tcp://127.0.0.1:$tls_port"
  echo "SANDBOX_TEST_TLS_CERT_PATH=$state/tls/client"
  echo "SANDBOX_TEST_SSH_HOST=ssh://root@127.0.0.1:$ssh_port"
  echo "SANDBOX_TEST_SSH_DIR=$state/ssh"
  if [ -s "$state/registry/password" ]; then
    echo "SANDBOX_TEST_REGISTRY=127.0.0.1:$registry_port"
    echo "SANDBOX_TEST_REGISTRY_USER=tfsandbox"
    echo "SANDBOX_TEST_REGISTRY_PASSWORD=$(cat "$state/registry/password")"
  fi
}

# --- main --------------------------------------------------------------------

all=(tls ssh podman rootless scratch registry)
cmd="${1:-}"
shift || true
[ "$#" -gt 0 ] || set -- "${all[@]}"
case "$cmd" in
start) for e in "$@"; do "start_$e"; done ;;
running) for e in "$@"; do running "$e"; done ;;
stop) for e in "$@"; do "stop_$e"; done ;;
with-scratch)
  # with-scratch COMMAND...: runs COMMAND with scripts/ensure-engine.sh's
  # settings for the throwaway engine (scripts/test-ensure-engine.sh).
  cd "$caller_dir" && with_scratch_dockerd "$@"
  ;;
env)
  [ "$#" -eq 1 ] || die "env takes one engine name (local, ${all[*]})"
  [ "$1" = local ] || "$1_env"
  test_env
  ;;
*) die "usage: engines.sh start NAME... | stop [NAME...] | running NAME... | env NAME | with-scratch COMMAND... (NAME: ${all[*]})" ;;
esac
