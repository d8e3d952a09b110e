#!/usr/bin/env bash
# A single-node Kubernetes cluster on this machine, offline, for the
# acceptance tests of the Kubernetes backend: etcd, the API server, the
# scheduler and the controller manager, built from their Go modules
# (tools/cluster), and a kubelet running pods through a containerd of its own
# (Debian's, never the one the machine's Docker uses) with runc, and with
# gVisor as the RuntimeClass `gvisor` (runsc with no network stack, through
# containerd's runc shim and scripts/cluster-runsc). Pods get
# Debian's CNI bridge plugin; those of the RuntimeClass `none` an interface
# that leads nowhere. Everything
# listens on loopback, and lives in .build/cluster, /var/lib/tfsandbox-k8s
# and /run/tfsandbox-k8s.
#
# Usage: cluster.sh build | start | stop | running | env
#
#   build  builds the binaries into .build/cluster/bin (a cold build is about
#          2,400 CPU-seconds), agent-sandbox's controller among them
#   start  builds what is missing, starts the cluster, and waits for its node
#          to be Ready and the test image to be there; it installs
#          agent-sandbox (kubernetes-sigs/agent-sandbox, pinned in
#          tools/agentsandbox): its CRDs, and its controller with the
#          extensions (templates, warm pools, claims), run beside the control
#          plane. SANDBOX_CLUSTER_AGENT_SANDBOX=0 starts a cluster without
#          them, which serves only pods.
#   stop   stops everything start started, and removes its pods, network
#          and mounts; the binaries stay
#   running  exits 0 when the cluster runs
#   env    prints the variables the tests find the cluster by: its kubeconfig
#          (SANDBOX_TEST_KUBECONFIG) and the pod network's gateway, an address of
#          the node (SANDBOX_TEST_POD_GATEWAY)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$repo/.build/cluster"
bin="$build_dir/bin"
pki="$build_dir/pki"
# The test registry's port (scripts/engines.sh).
registry_port="${SANDBOX_REGISTRY_PORT:-25000}"
etc="$build_dir/etc"
logs="$build_dir/logs"
data=/var/lib/tfsandbox-k8s
run=/run/tfsandbox-k8s
k8s_version=v1.36.4
node=localhost
etcd_port=23790
etcd_peer_port=23800
api_port=26443
kubelet_port=26250
kubelet_health_port=26248
scheduler_port=26259
controller_port=26257
pod_cidr=10.250.0.0/24
service_cidr=10.251.0.0/24
api_service_ip=10.251.0.1
cni_bridge=tfsbk8s0
none_bridge=tfsbnone0
none_cidr=10.253.0.0/24
image="${SANDBOX_TEST_IMAGE:-tfsandbox/busybox:latest}"
pause_image=tfsandbox/pause:latest
cd /

say() { echo "cluster: $*"; }
die() { echo "cluster: $*" >&2; exit 1; }

# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"

# No kubectl: the script asks the API server with curl, and a developer's
# kubectl (Debian's kubernetes-client, say) reads etc/admin.kubeconfig.
components=(etcd kube-apiserver kube-controller-manager kube-scheduler kubelet)
# agent-sandbox: built from its own module (tools/agentsandbox), and the
# ports its controller serves its health and metrics on.
agent_sandbox="${SANDBOX_CLUSTER_AGENT_SANDBOX:-1}"
agent_sandbox_tools=(agent-sandbox-controller yaml2json)
agent_sandbox_health_port=26281
agent_sandbox_metrics_port=26280

build() {
  build_agent_sandbox
  local missing=() stamp="$bin/kubernetes-version"
  # Binaries of another release (a checkout built before k8s_version
  # changed) are built again.
  if [ "$(cat "$stamp" 2>/dev/null)" != "$k8s_version" ]; then
    for c in "${components[@]}"; do rm -f "$bin/$c"; done
  fi
  for c in "${components[@]}"; do [ -x "$bin/$c" ] || missing+=("$c"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  say "building ${missing[*]} (Kubernetes $k8s_version)"
  mkdir -p "$bin"
  local pkgs=() c
  for c in "${missing[@]}"; do
    case "$c" in
      etcd) pkgs+=(github.com/tfsandbox/terraform-provider-sandbox/tools/cluster/cmd/etcd) ;;
      *) pkgs+=("k8s.io/kubernetes/cmd/$c") ;;
    esac
  done
  local minor="${k8s_version#v1.}"
  minor="${minor%%.*}"
  (cd "$repo/tools/cluster" && CGO_ENABLED=0 go build -trimpath -o "$bin/" -ldflags "-s -w \
    -X k8s.io/component-base/version.gitVersion=$k8s_version \
    -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
    -X k8s.io/component-base/version.gitTreeState=clean" "${pkgs[@]}") &&
    echo "$k8s_version" >"$stamp"
}

build_agent_sandbox() {
  local missing=() c
  for c in "${agent_sandbox_tools[@]}"; do [ -x "$bin/$c" ] || missing+=("$c"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  say "building ${missing[*]} (agent-sandbox $(agent_sandbox_version))"
  mkdir -p "$bin"
  (cd "$repo/tools/agentsandbox" && for c in "${missing[@]}"; do
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/$c" "$(go list -f '{{.ImportPath}}' tool |
      grep "/$c\$")" || exit 1
  done)
}

agent_sandbox_version() { (cd "$repo/tools/agentsandbox" && go list -m -f '{{.Version}}' sigs.k8s.io/agent-sandbox); }

# install_agent_sandbox: agent-sandbox's CRDs, from its module, and its
# controller, run as the cluster's admin outside the cluster (as its
# manifests run it inside, with its RBAC) with leader election off; waits
# until every CRD is established and the controller is healthy.
install_agent_sandbox() {
  local dir crd json name
  dir="$(cd "$repo/tools/agentsandbox" && go list -m -f '{{.Dir}}' sigs.k8s.io/agent-sandbox)"
  mkdir -p "$etc/agent-sandbox"
  for crd in "$dir"/k8s/crds/*.yaml; do
    json="$etc/agent-sandbox/$(basename "$crd" .yaml).json"
    "$bin/yaml2json" <"$crd" >"$json"
    name="$(basename "$crd" .yaml | sed 's/^\([^_]*\)_\(.*\)$/\2.\1/')"
    api GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name" >/dev/null 2>&1 ||
      api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "@$json" >/dev/null ||
      die "the CRD $name was refused; see $json"
    wait_for "the CRD $name" 60 crd_established "$name"
  done
  daemon agent-sandbox-controller "$bin/agent-sandbox-controller" --kubeconfig "$etc/admin.kubeconfig" \
    --extensions --leader-elect=false --metrics-bind-address "127.0.0.1:$agent_sandbox_metrics_port" \
    --health-probe-bind-address "127.0.0.1:$agent_sandbox_health_port"
  wait_for "agent-sandbox's controller" 60 curl -sf "http://127.0.0.1:$agent_sandbox_health_port/readyz"
}

crd_established() { api GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$1" | tr -d ' \n' |
  grep -q '"type":"Established","status":"True"'; }

# cert NAME CN O [SAN]: a key and a certificate signed by the cluster's CA.
cert() {
  local name="$1" cn="$2" org="$3" san="${4:-}"
  [ -f "$pki/$name.crt" ] && return 0
  local subj="/CN=$cn"
  [ -n "$org" ] && subj="/O=$org$subj"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$pki/$name.key" -subj "$subj" \
    -out "$pki/$name.csr" 2>/dev/null
  local ext="$pki/$name.ext"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [ -n "$san" ]; then
      echo "extendedKeyUsage=serverAuth,clientAuth"
      echo "subjectAltName=$san"
    else
      echo "extendedKeyUsage=clientAuth"
    fi
  } >"$ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 30 -extfile "$ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$ext"
}

# kubeconfig NAME CERT: a kubeconfig for the API server with a client
# certificate.
kubeconfig() {
  cat >"$etc/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: tfsandbox
  cluster:
    certificate-authority: $pki/ca.crt
    server: https://127.0.0.1:$api_port
users:
- name: $1
  user:
    client-certificate: $pki/$2.crt
    client-key: $pki/$2.key
contexts:
- name: tfsandbox
  context:
    cluster: tfsandbox
    user: $1
    namespace: default
current-context: tfsandbox
EOF
}

make_pki() {
  mkdir -p "$pki" "$etc"
  chmod 700 "$pki"
  if [ ! -f "$pki/ca.crt" ]; then
    openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -subj "/CN=tfsandbox-cluster-ca" \
      -days 30 -out "$pki/ca.crt" 2>/dev/null
  fi
  [ -f "$pki/sa.key" ] || {
    openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  }
  cert apiserver kube-apiserver "" \
    "IP:127.0.0.1,IP:$api_service_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert admin tfsandbox-admin system:masters
  cert controller-manager system:kube-controller-manager ""
  cert scheduler system:kube-scheduler ""
  cert node "system:node:$node" system:nodes
  cert kubelet "$node" "" "IP:127.0.0.1,DNS:$node,DNS:localhost"
  kubeconfig admin admin
  kubeconfig controller-manager controller-manager
  kubeconfig scheduler scheduler
  kubeconfig node node
}

# The pause image, from the test image: the sandbox container of every pod
# only holds its namespaces, sleeping.
pause_and_test_images() {
  "$repo/scripts/build-image.sh" "$image" >/dev/null
  if ! docker image inspect "$pause_image" >/dev/null 2>&1; then
    local c
    c="$(docker create --network none "$image" true)"
    docker export "$c" | docker import --change 'CMD ["/bin/sleep", "2147483647"]' - "$pause_image" >/dev/null
    docker rm "$c" >/dev/null
  fi
  docker save "$image" "$pause_image" | ctr --address "$run/containerd.sock" -n k8s.io images import - >/dev/null
}

write_config() {
  mkdir -p "$etc/cni" "$data" "$run"
  cat >"$etc/containerd.toml" <<EOF
version = 2
root = "$data/containerd"
state = "$run/containerd"
[grpc]
  address = "$run/containerd.sock"
[ttrpc]
  address = "$run/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$data/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/$pause_image"
  restrict_oom_score_adj = true
  enable_unprivileged_ports = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$run/runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-none]
      runtime_type = "io.containerd.runc.v2"
      cni_conf_dir = "$etc/cni-none"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-none.options]
        Root = "$run/runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc.options]
        BinaryName = "$repo/scripts/cluster-runsc"
        Root = "$run/runsc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$etc/cni"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$etc/certs.d"
EOF
  # The test registry (scripts/engines.sh start registry) speaks plain HTTP
  # on loopback, which the node is told to allow, as a cluster's owner does
  # for a registry without TLS.
  mkdir -p "$etc/certs.d/127.0.0.1:$registry_port"
  cat >"$etc/certs.d/127.0.0.1:$registry_port/hosts.toml" <<EOF
server = "http://127.0.0.1:$registry_port"

[host."http://127.0.0.1:$registry_port"]
  capabilities = ["pull", "resolve"]
EOF
  cat >"$etc/cni/10-tfsandbox.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "tfsandbox",
  "plugins": [
    {"type": "bridge", "bridge": "$cni_bridge", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$pod_cidr"}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": "$data/cni"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  # The network of the runtime handler runc-none (RuntimeClass none). The
  # CRI wants an eth0 with an address, so a pod gets one, on a macvlan in
  # private mode over a bridge with no ports and no address: no route, and
  # nothing on the other side, not even another such pod.
  mkdir -p "$etc/cni-none"
  cat >"$etc/cni-none/10-none.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "tfsandbox-none", "plugins": [
  {"type": "macvlan", "master": "$none_bridge", "mode": "private",
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$none_cidr"}]], "dataDir": "$data/cni-none"}}]}
EOF
  cat >"$etc/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $kubelet_port
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_health_port
readOnlyPort: 0
cgroupDriver: cgroupfs
# This machine's cgroups are v1 (a hybrid mount), which the kubelet refuses
# from 1.35 unless told otherwise; Debian's containerd 1.6 has no
# RuntimeConfig call, so cgroupDriver above is the kubelet's to say.
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$run/containerd.sock
tlsCertFile: $pki/kubelet.crt
tlsPrivateKeyFile: $pki/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
podCIDR: $pod_cidr
# The benchmark runs 200 sandboxes on the one node.
maxPods: 250
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
protectKernelDefaults: false
makeIPTablesUtilChains: false
EOF
}

# daemon NAME COMMAND...: runs it in the background, logging to
# logs/NAME.log, its pid in $run/NAME.pid.
daemon() {
  local name="$1"
  shift
  mkdir -p "$logs"
  setsid "$@" >"$logs/$name.log" 2>&1 </dev/null &
  echo $! >"$run/$name.pid"
}

# waits SECONDS COMMAND...: fails when COMMAND did not succeed in time.
waits() {
  local limit="$1" i
  shift
  for ((i = 0; i < limit * 2; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

# wait_for WHAT SECONDS COMMAND...
wait_for() {
  local what="$1" limit="$2"
  shift 2
  waits "$limit" "$@" || die "$what did not come up in ${limit}s; see $logs"
}

# api METHOD PATH [BODY]: a request to the API server as the cluster's
# admin; fails unless it answers 2xx.
api() {
  local args=(-sf --max-time 10 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" -X "$1")
  [ $# -gt 2 ] && args+=(-H 'Content-Type: application/json' --data "$3")
  curl "${args[@]}" "https://127.0.0.1:$api_port$2"
}

# node_ready: the node is Ready and carries no taint that keeps pods off
# it: the kubelet registers it with node.kubernetes.io/not-ready, which the
# controller manager takes off a moment after Ready, and a node short of
# disk or memory gets one too.
node_ready() {
  local json
  json="$(api GET "/api/v1/nodes/$node" | tr -d ' \n')" || return 1
  grep -q '"type":"Ready","status":"True"' <<<"$json" && ! grep -Eq '"effect":"No(Schedule|Execute)"' <<<"$json"
}

# node_taints: the node's taints, for an error.
node_taints() { api GET "/api/v1/nodes/$node" | tr -d ' \n' | grep -o '"taints":\[[^]]*\]' || echo "no taints"; }

# runtime_class NAME HANDLER: makes the RuntimeClass unless it exists.
runtime_class() {
  api GET "/apis/node.k8s.io/v1/runtimeclasses/$1" >/dev/null 2>&1 ||
    api POST /apis/node.k8s.io/v1/runtimeclasses \
      "{\"apiVersion\":\"node.k8s.io/v1\",\"kind\":\"RuntimeClass\",\"metadata\":{\"name\":\"$1\"},\"handler\":\"$2\"}" >/dev/null
}

# The cluster's default StorageClass, whose claims (sandbox_volume on a
# cluster) the controller manager's host-path provisioner binds to a new
# directory under /tmp/hostpath_pv on the node, removed with the claim.
default_storage_class() {
  api GET /apis/storage.k8s.io/v1/storageclasses/hostpath >/dev/null 2>&1 ||
    api POST /apis/storage.k8s.io/v1/storageclasses \
      '{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"hostpath","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"kubernetes.io/host-path","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}' >/dev/null
}

# The kernel settings the kubelet changes, restored by stop.
save_sysctls() {
  [ -f "$run/sysctls" ] && return 0
  sysctl -n kernel.panic kernel.panic_on_oops vm.overcommit_memory >"$run/sysctls"
}

restore_sysctls() {
  [ -f "$run/sysctls" ] || return 0
  local v=()
  mapfile -t v <"$run/sysctls"
  sysctl -q -w kernel.panic="${v[0]}" kernel.panic_on_oops="${v[1]}" vm.overcommit_memory="${v[2]}" || true
  rm -f "$run/sysctls"
}

# The pod network forwards: a host whose FORWARD policy is DROP (Docker
# sets it) would drop the traffic between pods on the bridge, and from pods
# to other hosts, which a cluster's network plugin lets through. The rules
# are in a chain of the cluster's own, which names only its bridge, and stop
# removes them.
forward_chain=TFSANDBOX-K8S
forward_pod_network() {
  iptables -N "$forward_chain" 2>/dev/null || iptables -F "$forward_chain"
  iptables -A "$forward_chain" -i "$cni_bridge" -j ACCEPT
  iptables -A "$forward_chain" -o "$cni_bridge" -j ACCEPT
  iptables -C FORWARD -j "$forward_chain" 2>/dev/null || iptables -I FORWARD 1 -j "$forward_chain"
}

unforward_pod_network() {
  while iptables -D FORWARD -j "$forward_chain" 2>/dev/null; do :; done
  iptables -F "$forward_chain" 2>/dev/null || true
  iptables -X "$forward_chain" 2>/dev/null || true
}

start() {
  [ "$(id -u)" = 0 ] || die "starting the cluster needs root"
  if [ -f "$run/kubelet.pid" ] && kill -0 "$(cat "$run/kubelet.pid")" 2>/dev/null; then
    say "already running"
    return 0
  fi
  install_packages containerd runc containernetworking-plugins openssl iptables
  "$repo/scripts/ensure-runsc.sh" >/dev/null
  build
  make_pki
  write_config
  save_sysctls
  [ -f "$run/netns-before" ] || ip netns list 2>/dev/null | awk '{print $1}' >"$run/netns-before"
  ip link show "$none_bridge" >/dev/null 2>&1 || ip link add "$none_bridge" type bridge
  ip link set "$none_bridge" up
  forward_pod_network
  local t0=$SECONDS
  daemon containerd containerd --config "$etc/containerd.toml"
  daemon etcd "$bin/etcd" --name tfsandbox --data-dir "$data/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster "tfsandbox=http://127.0.0.1:$etcd_peer_port" --listen-metrics-urls "" \
    --quota-backend-bytes 1073741824
  wait_for etcd 60 curl -sf "http://127.0.0.1:$etcd_port/health"
  daemon kube-apiserver "$bin/kube-apiserver" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
    --secure-port "$api_port" --etcd-servers "http://127.0.0.1:$etcd_port" \
    --service-cluster-ip-range "$service_cidr" --authorization-mode Node,RBAC \
    --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$pki/apiserver-kubelet-client.key" --kubelet-certificate-authority "$pki/ca.crt" \
    --kubelet-preferred-address-types Hostname \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --enable-admission-plugins NodeRestriction --allow-privileged=true --profiling=false
  wait_for "the API server" 120 api GET /readyz
  daemon kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$etc/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$etc/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$etc/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$controller_port" --use-service-account-credentials \
    --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
    --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
    --controllers '*,-cloud-node-lifecycle' --leader-elect=false --profiling=false \
    --enable-hostpath-provisioner
  daemon kube-scheduler "$bin/kube-scheduler" --kubeconfig "$etc/scheduler.kubeconfig" \
    --authentication-kubeconfig "$etc/scheduler.kubeconfig" --authorization-kubeconfig "$etc/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$scheduler_port" --leader-elect=false --profiling=false
  wait_for containerd 30 ctr --address "$run/containerd.sock" version
  daemon kubelet "$bin/kubelet" --config "$etc/kubelet.yaml" --kubeconfig "$etc/node.kubeconfig" \
    --hostname-override "$node" --root-dir "$data/kubelet" --v 1
  pause_and_test_images
  waits 120 node_ready || die "the node is not Ready in 120s, or keeps pods off ($(node_taints)); see $logs"
  wait_for "the default service account" 60 api GET /api/v1/namespaces/default/serviceaccounts/default
  runtime_class gvisor runsc
  runtime_class none runc-none
  default_storage_class
  [ "$agent_sandbox" = 0 ] || install_agent_sandbox
  say "ready in $((SECONDS - t0))s: KUBECONFIG=$etc/admin.kubeconfig"
}

stop_pid() {
  local name="$1" pid
  [ -f "$run/$name.pid" ] || return 0
  pid="$(cat "$run/$name.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$run/$name.pid"
}

stop() {
  [ -d "$run" ] || { say "not running"; return 0; }
  stop_pid agent-sandbox-controller
  stop_pid kubelet
  # The pods' containers, then their shims.
  if [ -S "$run/containerd.sock" ] && command -v crictl >/dev/null 2>&1; then
    crictl --runtime-endpoint "unix://$run/containerd.sock" rmp -fa >/dev/null 2>&1 || true
  fi
  local shim
  for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $run/containerd.sock" || true); do
    pkill -KILL -P "$shim" 2>/dev/null || true
    kill -KILL "$shim" 2>/dev/null || true
  done
  for name in kube-scheduler kube-controller-manager kube-apiserver etcd containerd; do stop_pid "$name"; done
  pkill -9 -f "runsc .*--root=$run/runsc" 2>/dev/null || true
  # The waiters of gVisor app containers (scripts/cluster-runsc).
  local waiter
  for waiter in "$run"/runsc-waiters/*; do
    [ -f "$waiter" ] && kill "$(cat "$waiter")" 2>/dev/null || true
  done
  # Mounts the kubelet and containerd left: pods' volumes and rootfs. There
  # may be none (the kubelet unmounts a deleted pod's volumes), and awk,
  # unlike grep, does not fail when nothing matches, which under pipefail
  # would end stop here, before the forward chain, the bridges and the
  # kernel settings are restored.
  awk -v data="$data/" -v run="$run/" 'index($2, data) == 1 || index($2, run) == 1 {print $2}' /proc/mounts |
    sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done
  unforward_pod_network
  ip link delete "$cni_bridge" 2>/dev/null || true
  ip link delete "$none_bridge" 2>/dev/null || true
  # The pods' network namespaces: those that were not there at start.
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '/^cni-/ {print $1}'); do
    grep -qx "$ns" "$run/netns-before" 2>/dev/null || ip netns delete "$ns" 2>/dev/null || true
  done
  restore_sysctls
  rm -rf "$data" "$run"
  # What a stop that returns 0 promises: nothing of the cluster is left
  # (rm, under errexit, has answered for the directories).
  local left=()
  iptables -S "$forward_chain" >/dev/null 2>&1 && left+=("the iptables chain $forward_chain")
  ip link show "$cni_bridge" >/dev/null 2>&1 && left+=("the bridge $cni_bridge")
  ip link show "$none_bridge" >/dev/null 2>&1 && left+=("the bridge $none_bridge")
  [ "${#left[@]}" -eq 0 ] || die "stop left behind: ${left[*]}"
  say "stopped"
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  running) [ -f "$run/kubelet.pid" ] && kill -0 "$(cat "$run/kubelet.pid")" 2>/dev/null ;;
  env) printf "SANDBOX_TEST_KUBECONFIG=%s\nSANDBOX_TEST_POD_GATEWAY=%s\n" "$etc/admin.kubeconfig" "${pod_cidr%.0/24}.1" ;;
  *) die "usage: cluster.sh build | start | stop | running | env" ;;
esac
