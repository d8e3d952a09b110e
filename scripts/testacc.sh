#!/usr/bin/env bash
# The acceptance suite (`make testacc`): the real terraform CLI against real
# engines, one pass each, as SANDBOX_TEST_PASSES names them (default: all,
# in this order):
#
#   faults  the fault tests, on a throwaway engine of their own
#           (scripts/engines.sh start scratch) that they kill and restart
#   local   the machine's Docker engine (DOCKER_HOST, or the local socket)
#   podman  Podman's Docker-compatible API, rootful, stock configuration
#   cluster the Kubernetes backend's tests (TestAccCluster*) against a
#           single-node cluster built and started here (scripts/cluster.sh)
#   rootless the same, run by a normal user on its own socket
#   tls     a second Docker engine that speaks only TLS
#   ssh     the machine's engine reached over SSH
#   oldest  the machine's engine under the oldest Terraform supported
#           (SANDBOX_TERRAFORM_OLDEST_PATH, 1.11)
#   tofu    the machine's engine under OpenTofu (SANDBOX_TOFU_PATH)
#   bench   no test: the benchmark's smoke run (bench/run.sh at two
#           sandboxes, one round) against every engine and the cluster,
#           which the passes before it left running. Its timings are no
#           results. Not among the default passes: SANDBOX_TEST_BENCH=1
#           adds it (.ci/run) right after the cluster's pass.
#
# Every pass but those two runs under TF_ACC_TERRAFORM_PATH, the current
# Terraform (`make terraform`).
#
# Every pass runs the same test binaries and the same build of the
# provider, made once as the run starts (.build/testacc), and only the
# acceptance tests in them (`make test` runs the unit tests). The test
# engines are started here and stopped when it ends, however it ends,
# unless SANDBOX_KEEP_ENGINES=1.
#
# The machine's engine is never killed, restarted or reconfigured: a
# container started on it before the passes (the canary) must be running,
# the same container, started at the same time, under the same dockerd,
# after them, or the run fails.
set -euo pipefail
# Static test binaries, as release builds are, and one build configuration
# for every step (.ci/run's), so that nothing compiles twice.
export CGO_ENABLED=0

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
# The helper programs the provider embeds (a helper container or pod runs
# the one for the engine's architecture), built from this tree, as a
# release's are.
make --no-print-directory helpers

# --- the test binaries --------------------------------------------------------

# `go test ./...` in every pass linked every package's test binary again
# (some 35, each with the Docker and Kubernetes clients), ran the unit tests
# again, and built the provider again in each package that drives the CLI:
# over a quarter of the suite's CPU on two cores. Built once here instead:
# the packages that hold acceptance tests, and the fault tests'.
module="$(go list -m)"
mapfile -t acc_packages < <(grep -rlE --include='*_test.go' '^func TestAcc' internal | xargs -n1 dirname | sort -u)
acc_packages+=(internal/faults)
# The longest first, so that the two at a time end together: a sandbox's
# tests, then snapshots'.
mapfile -t acc_packages < <(printf '%s\n' "${acc_packages[@]}" |
  awk '/containerresource$/ {print 0, $0; next} /snapshotresource$/ {print 1, $0; next} {print 2, $0}' |
  sort -k1,1n -s | cut -d' ' -f2)
tests="$repo/.build/testacc"
rm -rf "$tests"
mkdir -p "$tests"
echo "== building the provider and the test binaries of ${#acc_packages[@]} packages"
go build -o "$tests/terraform-provider-sandbox" .
go test -c -o "$tests/" "${acc_packages[@]/#/./}"
go build -o "$tests/testreport" ./scripts/testreport
# go tool would build test2json again for every package of every pass.
go build -o "$tests/test2json" cmd/test2json
# Each top-level test's result and seconds, by pass (scripts/testreport):
# where the suite's time goes.
times="$repo/.build/testacc-times.tsv"
: >"$times"
# Each test binary copies this build of the provider (acctest.providerDir).
export SANDBOX_TEST_PROVIDER="$tests/terraform-provider-sandbox"

# run_package PACKAGE runs the package's test binary in the package's
# directory, as `go test` does, with the tests that TEST_RUN matches and
# TEST_SKIP does not, within TEST_TIMEOUT (and -test.v where TEST_VERBOSE
# is 1); it prints what `go test` prints: an `ok` line, or the whole output
# and a `FAIL` line.
run_package() {
  set -o pipefail
  local pkg="$1" bin listed log status=0 start took
  bin="$tests/${pkg##*/}.test"
  # Listing runs no test and connects to nothing (no TF_ACC).
  listed="$(cd "$repo/$pkg" && env -u TF_ACC "$bin" -test.list "$TEST_RUN")" || return 1
  if ! grep -q . <<<"$listed"; then
    printf 'ok  \t%s/%s\t[no tests to run]\n' "$module" "$pkg"
    return 0
  fi
  local args=(-test.v=test2json -test.run "$TEST_RUN" -test.timeout "$TEST_TIMEOUT" -test.parallel "$TEST_PARALLEL")
  local report=()
  [ -z "$TEST_SKIP" ] || args+=(-test.skip "$TEST_SKIP")
  [ "$TEST_VERBOSE" != 1 ] || report+=(-v)
  log="$(mktemp)"
  start=$(date +%s%N)
  # Its events, whence what `go test` prints and each test's seconds.
  (cd "$repo/$pkg" && GOMAXPROCS="$TEST_GOMAXPROCS" "$tests/test2json" -t -p "$module/$pkg" "$bin" "${args[@]}" 2>&1) |
    "$tests/testreport" "${report[@]}" -pass "${SANDBOX_TEST_PASS:-}" -times "$times" >"$log" 2>&1 ||
    status=1
  took="$((($(date +%s%N) - start) / 1000000))"
  # Each package's seconds in its pass, for the summary at the end.
  printf '%s\t%s\t%d\n' "${SANDBOX_TEST_PASS:-}" "${pkg##*/}" "$((took / 1000))" >>"$tests/packages.tsv"
  took="$((took / 1000)).$(printf %03d $((took % 1000)))s"
  # One package's output at a time.
  {
    flock 9
    if [ "$status" = 0 ]; then
      [ "$TEST_VERBOSE" != 1 ] || cat "$log"
      printf 'ok  \t%s/%s\t%s\n' "$module" "$pkg" "$took"
    else
      cat "$log"
      printf 'FAIL\t%s/%s\t%s\n' "$module" "$pkg" "$took"
    fi
  } 9>>"$tests/output.lock"
  rm -f "$log"
  return "$status"
}
export -f run_package
# The test binaries, and the terraform, tofu and provider processes they
# start, run with one P each (GOMAXPROCS=1): the passes' processes share
# CI's two cores, where a second P in each buys no speed but costs CPU (its
# idle spinning, its threads, a GC spread over two), measured at some 10 %
# of their CPU. As many tests still run side by side in each package as on
# two Ps, `go test`'s default (-parallel is GOMAXPROCS unless given).
# SANDBOX_TEST_GOMAXPROCS and SANDBOX_TEST_PARALLEL set them otherwise.
TEST_GOMAXPROCS="${SANDBOX_TEST_GOMAXPROCS:-1}"
TEST_PARALLEL="${SANDBOX_TEST_PARALLEL:-$(nproc)}"
export module repo tests times TEST_GOMAXPROCS TEST_PARALLEL

# run_tests TIMEOUT RUN SKIP VERBOSE PACKAGE... runs the packages' test
# binaries two at a time, as `go test` does on two cores; it fails when
# one of them fails.
run_tests() {
  local timeout="$1" run="$2" skip="$3" verbose="$4"
  shift 4
  printf '%s\n' "$@" | TEST_TIMEOUT="$timeout" TEST_RUN="$run" TEST_SKIP="$skip" TEST_VERBOSE="$verbose" \
    xargs -P 2 -I{} bash -c 'run_package "$1"' _ {}
}

passes="${SANDBOX_TEST_PASSES:-faults local podman cluster rootless tls ssh oldest tofu}"
# The smoke run comes right after the cluster's pass, whose cluster it
# uses.
if [ "${SANDBOX_TEST_BENCH:-}" = 1 ]; then
  case " $passes " in *" cluster "*) passes="${passes/cluster/cluster bench}" ;; *) passes+=" bench" ;; esac
fi
image="${SANDBOX_TEST_IMAGE:-tfsandbox/busybox:latest}"
terraform="${TF_ACC_TERRAFORM_PATH:-$(command -v terraform || true)}"
[ -n "$terraform" ] || { echo "terraform is not on PATH" >&2; exit 1; }
tofu="${SANDBOX_TOFU_PATH:-$repo/bin/tofu}"
oldest="${SANDBOX_TERRAFORM_OLDEST_PATH:-}"
# A CLI configuration file that names a file missing (this machine's
# environment may) makes OpenTofu 1.12 print a warning where the test kit
# reads its version: no file is no configuration.
if [ -n "${TF_CLI_CONFIG_FILE:-}" ] && [ ! -e "$TF_CLI_CONFIG_FILE" ]; then unset TF_CLI_CONFIG_FILE; fi
# Tests that run both CLIs find them here whatever the pass.
export SANDBOX_TOFU_PATH="$tofu" SANDBOX_TERRAFORM_PATH="$terraform" SANDBOX_TEST_IMAGE="$image"

for p in $passes; do
  case "$p" in faults | local | cluster | podman | rootless | tls | ssh | bench) ;;
  tofu) [ -x "$tofu" ] || [ "${SANDBOX_AWAIT_BUILDS:-}" = 1 ] ||
    { echo "no OpenTofu at $tofu: build it with \`make tofu\`" >&2; exit 1; } ;;
  oldest) [ -x "$oldest" ] || { echo "set SANDBOX_TERRAFORM_OLDEST_PATH to Terraform 1.11 for the oldest pass" >&2; exit 1; } ;;
  *) echo "unknown pass $p (faults, local, cluster, podman, rootless, tls, ssh, oldest, tofu, bench)" >&2; exit 1 ;;
  esac
done

# --- the canary on the machine's engine -------------------------------------

canary="tfsandbox-canary-$$"
# dockerd_pid is the machine engine's dockerd: the one in its pid file, or
# the one running without a pid file of its own.
dockerd_pid() {
  if [ -s /var/run/docker.pid ]; then
    cat /var/run/docker.pid
    return
  fi
  local pid args
  for pid in $(pgrep -x dockerd || true); do
    args="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
    if [[ "$args" != *--pidfile* ]]; then
      echo "$pid"
      return
    fi
  done
}
canary_state() {
  echo "$(docker inspect -f '{{.Id}} {{.State.Running}} {{.State.StartedAt}} {{.State.Pid}}' "$canary" 2>&1) dockerd=$(dockerd_pid)"
}
docker run -d --name "$canary" --network none --label tfsandbox.canary=1 "$image" tail -f /dev/null >/dev/null
before="$(canary_state)"
echo "== canary on the machine's engine: $before"

# Each stop runs whether or not the one before it failed, and a failure
# fails the run.
stop() {
  local status=0
  docker rm -f "$canary" >/dev/null 2>&1 || true
  if [ "${SANDBOX_KEEP_ENGINES:-}" != 1 ]; then
    scripts/engines.sh stop || status=1
    case " $passes " in *" cluster "*) scripts/cluster.sh stop || status=1 ;; esac
  fi
  return "$status"
}
trap stop EXIT

# --- the passes --------------------------------------------------------------

# The connection tests reach the TLS engine and the SSH host, and the
# multi-engine example stock Podman, in every pass but the fault tests' and
# the cluster's.
case "$passes" in faults | cluster) ;; *) scripts/engines.sh start tls ssh podman ;; esac
# The private registry the registry tests pull from, on every engine and
# the cluster.
case "$passes" in faults) ;; *) scripts/engines.sh start registry ;; esac
case " $passes " in *" rootless "*) scripts/engines.sh start rootless ;; esac

# What each pass runs, so that the whole of .ci/run stays within CI's time on
# two cores, where every pass is bound by the CPU:
#
#   local     everything, on Docker
#   podman    on rootful Podman, the sandbox's promises: isolation and
#             drift, hardening, limits, files, inherited labels, a crash
#             loop, interruptions (6 interrupted applies; 12 on Docker),
#             workspaces and a snapshot's round trip (its own reader);
#             exec's stops (the kill reads Podman's process listing): its
#             timeouts, Ctrl-C and failures; and terraform query of the
#             sandboxes and volumes a lost state left.
#             The whole of containerresource takes Podman over 20 minutes
#   rootless  on rootless Podman, the rest of Podman's API (a build, the
#             labels it passes on and its removal that keeps an untagged
#             base, volumes, a file read) and what rootless
#             changes: limits applied or refused, volume bounds, hardening,
#             ports, the isolation core, files, workspaces, a crash loop,
#             the exec kill, and a snapshot restored here and on Docker
#   tls, ssh  what depends on the transport: an exec with its timeout kill
#             (hijacked streams), a build (the context's upload), a file
#             read (archives), a seeded volume, a snapshot and the core sandbox
#             lifecycle with drift and an interrupted apply (the connection
#             tests reach the TLS engine and the SSH host from every pass,
#             so they run in the local one)
#   oldest    under Terraform 1.11, the oldest supported: the core
#             lifecycle, isolation and its drift, the write-only and
#             ephemeral values 1.11 brought, and failed creates recorded
#             tainted (which Terraform 1.14 and later cannot save)
#   tofu      what depends on the CLI: installation, the examples, the
#             ephemeral resource, write-only and sensitive values, a
#             snapshot restored on another engine, import by identity, plan
#             output, the core lifecycle, and how a change of files' type
#             alone plans
core_tests='TestAccContainer_(isolatedCreateAndImport|removedOutOfBandIsRecreatedIsolated|reattachedToNetworkIsReplacedIsolated|cliInterruptedApplyConverges)$'
podman_tests='^(TestAccContainer_(isolatedCreateAndImport|removedOutOfBandIsRecreatedIsolated|reattachedToNetworkIsReplacedIsolated|stoppedOrPausedIsStartedInPlace|addingNetworkModeForcesReplacement|hardenedSandbox|capabilities|noNewPrivilegesBlocksSetuid|unsafeCapabilityNeedsEscapeHatch|limitsEnforcedByKernel|limitsUpdatedInPlace|filesWrittenBeforeStart|filesWithReadOnlyRoot|filesSameByContent|inheritedLabelsProveNothing|copiedLabelsProveNothing|crashLoopIsDrift|exitingCommandFailsCreate|exitingCommandAmongManyIsCaught|exitingCommandFailsWake|sleepFreezeAndWake|breachedAsleepIsReplaced|interruptedWakeConverges|expiry|randomInterruptsNeverLeak|cliInterruptedApplyConverges|createCutOffAfterTheEngineMadeItLeavesNothing|workspaceSurvivesEveryReplacement|secretEnvNeverStored|queryFindsWhatAKilledApplyLeft|privateRegistry|registryPasswordNeverShown)|TestAccExec_(timeoutKillsWhatTheSandboxHides|ctrlCKillsWhatTheSandboxHides|failuresAndTimeouts|secretsStayOutOfErrorsAndLogs)|TestAccSnapshot_(restoredByteForByte|sparseFileOfEveryByteIsRefusedAtOnce|swapsStayOutside)|TestAccVolume_queryFindsVolumesAStateLost|TestAccArchive_enginesUnpackWhatTheProviderChecked)$'
podman_skip='^TestAccContainer_(twoEnginesOneConfiguration|frozenEngineFailsPlanInBoundedTime)$'
rootless_tests="^(TestAccImage_(buildAndRebuild|destroyKeepsAnUntaggedBaseItDidNotBuild|stepsThatPrintTheBuildersLinesNameNothingItRemoves|inheritedLabelsDoNotMakeATagOurs|queryFindsWhatItBuilt|privateBaseImage)$|TestAccSnapshot_(restoredByteForByte|resumedOnTheMachinesDocker|swapsStayOutside)$|TestAccVolume_(lifecycle|seededFromSource|memoryVolumeIsBounded|diskSizeIsEnforcedOrRefused)$|TestAccFileDataSource_readsResults$|TestAccArchive_enginesUnpackWhatTheProviderChecked$|TestAccExec_(timeoutKillsWhatTheSandboxHides|failuresAndTimeouts)$|TestAccContainer_(hardenedSandbox|capabilities|noNewPrivilegesBlocksSetuid|limitsEnforcedByKernel|limitsUpdatedInPlace|portsBindToLoopback|workspaceSurvivesEveryReplacement|filesWithReadOnlyRoot|crashLoopIsDrift|privateRegistry|sleepFreezeAndWake|expiry)$|$core_tests)"
transport_tests="^(TestAccExec_failuresAndTimeouts$|TestAccSnapshot_restoredByteForByte$|TestAccImage_buildAndRebuild$|TestAccFileDataSource_readsResults$|TestAccVolume_seededFromSource$|TestAccContainer_(filesWrittenBeforeStart|copiedLabelsProveNothing|sleepFreezeAndWake|expiry|expiryOnAnotherEnginesSocket|expiryOutlivesTheEnginesSocketMadeAgain)$|$core_tests)"
# The fault test of a create recorded pending (above, the faults pass).
pending_tests='TestEngineKilledDuringApplyConverges'
oldest_tests="^(TestAccExecEphemeral_|TestAccExec_writeOnlyEnvIsNeverStored$|TestAccVolume_seedingCutByAGoneEngineConvergesOnTheNextApply$|TestAccContainer_(hardenedSandbox|stoppedOrPausedIsStartedInPlace|addingNetworkModeForcesReplacement|secretEnvNeverStored|createCutOffWithTheEngineGoneConvergesOnTheNextApply)$|$core_tests)"
cli_tests="^(TestAcc(Container|Volume)_importByIdentity$|TestAccSnapshot_resumedOnTheMachinesDocker$|TestAccProvider_(unreachable|invalid)|TestAccInstall_|TestAccQuickstart|TestAccWorkspaceExample|TestAccTerraformTestExample|TestAccExecEphemeral_|TestAccExec_(writeOnlyEnvIsNeverStored|secretsStayOutOfErrorsAndLogs)$|TestAccContainer_(cli.*|secretEnvNeverStored|isolatedCreateAndImport|filesSameByContent|filesStateFromV2|ulimitKnownOnlyAtApply)$)"

# await NAME: under .ci/run, which builds OpenTofu and the cluster's
# binaries beside the passes that do not need them (SANDBOX_AWAIT_BUILDS=1:
# each build writes ok or failed to .build/ready/NAME when it ends), waits
# until NAME's build has ended, and fails when it failed or has not ended
# within the hour.
await() {
  [ "${SANDBOX_AWAIT_BUILDS:-}" = 1 ] || return 0
  local marker="$repo/.build/ready/$1" start=$SECONDS
  [ -e "$marker" ] || echo "== waiting for the build of $1"
  until [ -e "$marker" ]; do
    if [ $((SECONDS - start)) -ge 3600 ]; then
      echo "the build of $1 has not ended within the hour" >&2
      return 1
    fi
    sleep 5
  done
  [ "$(cat "$marker")" = ok ] || { echo "the build of $1 failed: see .build/background-build*.log" >&2; return 1; }
  [ $((SECONDS - start)) -lt 5 ] || echo "== the build of $1 ended after $((SECONDS - start)) s of waiting"
}

# The cluster is stopped after the last pass that uses it.
cluster_last=cluster
case " $passes " in *" bench "*) cluster_last=bench ;; esac

# clock S prints S seconds as M:SS.
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
spans="$(mktemp)"

# Where the CPU goes (CI's two cores are the passes' limit): each pass's
# own processes (the test binaries, terraform and the providers, helpers
# the tests run), from the CPU its lane's shell's children used; the
# machine's busy time; and the long-lived processes beside the passes (the
# engines, the cluster), each pid's CPU since the tests began (the
# cluster's read before it stops).
cpu="$tests/cpu"
mkdir -p "$cpu"
# children_cpu sets children to the CPU seconds this shell's children
# that ended used: `times` runs in this shell, into a file (in a command
# substitution's subshell, it would count that subshell's children).
children_cpu() {
  local file="$cpu/times.$BASHPID"
  times >"$file"
  children="$(awk 'function s(x, a) { split(x, a, "m"); sub(/s$/, "", a[2]); return a[1] * 60 + a[2] }
    NR == 2 { printf "%d\n", s($1) + s($2) }' "$file")"
}
# machine_cpu prints the machine's busy and total CPU time since boot, in
# clock ticks.
machine_cpu() {
  awk '$1 == "cpu" { idle = $5 + $6; for (i = 2; i <= NF; i++) all += $i; printf "%d %d\n", all - idle, all }' /proc/stat
}
# processes_cpu FILE records each process's pid, name and CPU seconds
# (ps's times).
processes_cpu() { ps -eo pid=,comm=,times= >"$cpu/$1"; }
processes_cpu start
machine_cpu >"$cpu/machine.start"

failed=()
run_pass() {
  local p="$1" start=$SECONDS status=0 children used
  children_cpu
  used="$children"
  if [ "$p" = bench ]; then
    printf '\n== the benchmark'"'"'s smoke run (make bench at 2 sandboxes, one round, every backend; its timings are no results)\n'
    # The phases wait at most a second for a quiet machine, not 30 s
    # each: the passes beside it keep the machine busy.
    local log="$tests/bench.log"
    BENCH_SETTLE_MAX=1s BENCH_N=2 BENCH_ROUNDS=1 BENCH_WAKE=2 BENCH_CLAIMS=2 BENCH_REMOTE_N=2 BENCH_FILES="20 200" \
      BENCH_CLUSTER_N=2 BENCH_SNAPSHOT_MB=16 BENCH_SNAPSHOT_FILES=100 BENCH_SNAPSHOT_DEEP=500 bench/run.sh 2>&1 |
      tee "$log" || status=1
    if [ "$status" != 0 ]; then
      # Why, in the summary at the end: the last lines that say so.
      printf 'bench\tbench\tsmoke run\tfail\t%d\t%s\n' "$((SECONDS - start))" \
        "$(grep -iE 'fail|error|refused|not met|timed out' "$log" | tail -n 3 | tr '\n\t' '  ' | cut -c1-400)" >>"$times"
    fi
  else
    run_tests_of "$p" || status=1
  fi
  # The cluster's API server, etcd and kubelet would take the CPU the
  # passes after the last that uses it need. A failed stop fails the
  # pass, and the passes after it still run.
  if [ "$p" = "$cluster_last" ] && [ "${SANDBOX_KEEP_ENGINES:-}" != 1 ]; then
    processes_cpu cluster
    scripts/cluster.sh stop || status=1
  fi
  children_cpu
  echo "$p $((children - used))" >>"$cpu/passes"
  local took=$((SECONDS - start))
  # Each pass's span, for the summary at the end (CI shows only the end).
  echo "$p $(clock "$start")-$(clock "$SECONDS")" >>"$spans"
  took="$((took / 60)):$(printf %02d $((took % 60))) ($took s)"
  if [ "$status" = 0 ]; then
    echo "== $p: passed in $took"
  else
    echo "== $p: FAILED after $took"
    failed+=("$p")
  fi
}

# run_tests_of PASS runs the pass's tests; it fails when one fails.
run_tests_of() {
  local p="$1" status=0
  local cli=(TF_ACC_TERRAFORM_PATH="$terraform") engine="$p" timeout=20m
  local run='^TestAcc' skip='' verbose=0 pkgs=("${acc_packages[@]}")
  case "$p" in
  tofu)
    await tofu || { echo "== no OpenTofu"; return 1; }
    # plugin-testing serves the provider as <host>/hashicorp/sandbox; under
    # OpenTofu an unqualified "sandbox" means registry.opentofu.org.
    cli=(TF_ACC_TERRAFORM_PATH="$tofu" TF_ACC_PROVIDER_HOST=registry.opentofu.org)
    engine=local run="$cli_tests"
    printf '\n== the CLI'"'"'s tests against the local engine under OpenTofu (%s)\n' "$("$tofu" version | head -n 1)"
    ;;
  oldest)
    cli=(TF_ACC_TERRAFORM_PATH="$oldest")
    engine=local run="$oldest_tests"
    printf '\n== the core'"'"'s, isolation'"'"'s and write-only tests against the local engine under %s\n' "$("$oldest" version | head -n 1)"
    ;;
  tls | ssh)
    printf '\n== the transport'"'"'s tests against the local engine over %s\n' "$p"
    run="$transport_tests"
    ;;
  podman)
    printf '\n== the sandbox'"'"'s and exec'"'"'s tests against the podman engine\n'
    run="$podman_tests" skip="$podman_skip"
    # Six interrupted applies of 30 sandboxes, not Docker's 12: Podman's
    # creates and destroys are slow, and its 20 took 17 of the 45 minutes
    # its containerresource tests reached beside the other passes in a
    # fresh-clone run (the limit, so the package failed). The spread of
    # the Ctrl-C moments over the creates is checked on Docker's 12.
    cli+=(SANDBOX_TEST_INTERRUPTS=6)
    timeout=45m
    ;;
  rootless)
    printf '\n== what rootless changes, and the rest of Podman'"'"'s API, against the rootless engine\n'
    run="$rootless_tests"
    # Its containerresource tests took 19.6 of their 20 minutes beside the
    # Podman and cluster passes in a fresh-clone run: a limit, not a wait.
    timeout=35m
    ;;
  cluster)
    await cluster || { echo "== no cluster binaries"; return 1; }
    scripts/cluster.sh start || return 1
    printf '\n== the Kubernetes backend'"'"'s tests against the test cluster\n'
    # shellcheck disable=SC2046 # one VAR=value per line, none with spaces
    export $(scripts/cluster.sh env)
    engine=local run='^TestAccCluster'
    # Its snapshot tests carry a 9 GiB file through a helper pod: some 11
    # minutes on a quiet machine, 19 beside the local pass.
    timeout=30m
    ;;
  faults)
    scripts/engines.sh start scratch
    printf '\n== fault tests on the throwaway engine\n'
    scripts/engines.sh with-scratch scripts/test-ensure-engine.sh || status=1
    scripts/test-engines.sh || status=1
    cli+=(SANDBOX_FAULTS=1)
    engine=scratch run=. verbose=1 pkgs=(internal/faults)
    ;;
  *)
    printf '\n== tests against the %s engine\n' "$p"
    # Its containerresource tests, one at a time where they drive the
    # CLI themselves, took over 20 minutes beside the cluster's pass on a
    # busy machine.
    [ "$p" = local ] && timeout=40m
    ;;
  esac
  # The cluster tests run in the cluster pass alone.
  [ "$p" = cluster ] || unset SANDBOX_TEST_KUBECONFIG SANDBOX_TEST_POD_GATEWAY
  # shellcheck disable=SC2046 # one VAR=value per line, none with spaces
  (export $(scripts/engines.sh env "$engine") TF_ACC=1 SANDBOX_TEST_PASS="$p" "${cli[@]}" &&
    run_tests "$timeout" "$run" "$skip" "$verbose" "${pkgs[@]}") || status=1
  if [ "$p" = faults ]; then
    # A create the provider could not undo (the engine died under it) is
    # recorded tainted, as an error with a partial state, by every CLI
    # that can save one; Terraform 1.14 and later cannot (it would fail to
    # write the whole state), and the provider returns none to them. The
    # pass above runs this test under the current Terraform; here it runs
    # under the oldest, which records the create tainted. See the
    # interruptions guide.
    # shellcheck disable=SC2046 # one VAR=value per line, none with spaces
    (export $(scripts/engines.sh env scratch) TF_ACC=1 SANDBOX_TEST_PASS=faults SANDBOX_FAULTS=1 \
      TF_ACC_TERRAFORM_PATH="${oldest:-$terraform}" &&
      run_tests "$timeout" "^$pending_tests\$" '' 1 internal/faults) || status=1
    scripts/engines.sh stop scratch || status=1
  fi
  return "$status"
}
# Passes that share no engine run side by side, in two lanes (a pass waits
# on its engine as much as on the CPU): the throwaway engine's, the
# cluster's and rootful Podman's, beside the machine's engine's (local,
# TLS, SSH, Terraform 1.11, OpenTofu) and rootless Podman's. Each line says
# its lane. SANDBOX_TEST_SIDE_BY_SIDE=0 runs them one after another.
failures="$(mktemp)"
lane() {
  local p
  for p in "$@"; do
    run_pass "$p"
    if [ "${#failed[@]}" -gt 0 ]; then printf '%s\n' "${failed[@]}" >>"$failures"; failed=(); fi
  done
}
if [ "${SANDBOX_TEST_SIDE_BY_SIDE:-1}" = 1 ]; then
  lane_a=() lane_b=()
  for p in $passes; do
    case "$p" in faults | cluster | podman | bench) lane_a+=("$p") ;; *) lane_b+=("$p") ;; esac
  done
  (lane "${lane_a[@]}") 2>&1 | sed -u 's/^/[a] /' &
  lane_a_pid=$!
  (lane "${lane_b[@]}") 2>&1 | sed -u 's/^/[b] /'
  wait "$lane_a_pid" || true
else
  # shellcheck disable=SC2086 # the passes are words
  lane $passes
fi
mapfile -t failed <"$failures"

# image_events prints what a Podman engine did to each image that a test
# of its pass that failed names by ID (engines.sh records the events): a
# test that finds an image gone shows which removal took it, or that none
# did.
image_events() {
  local pass text id at rest
  awk -F'\t' '$4 == "fail" && ($1 == "podman" || $1 == "rootless") { print $1 "\t" $6 }' "$times" |
    while IFS=$'\t' read -r pass text; do
      for id in $(grep -o 'sha256:[0-9a-f]\{64\}' <<<"$text" | sort -u); do
        echo "== $pass: the engine's events about image ${id:7:12} (UTC):"
        grep -F "${id#sha256:}" "${SANDBOX_ENGINES_STATE:-$repo/.build/engines}/$pass/image-events.txt" 2>/dev/null |
          while read -r at rest; do echo "   $(date -u -d "@$at" +%T) $rest"; done
      done
    done
}
rm -f "$failures"

# Every pass's span in one line, in minutes since the tests began.
echo "== passes (from-to, minutes into the tests): $(sort -t' ' -k2 -V "$spans" | tr '\n' ' ')"
rm -f "$spans"
# The slowest packages and tests, which make a pass long (CI shows only
# the end).
echo "== slowest packages (pass:package seconds): $(sort -t$'\t' -k3,3 -g -r "$tests/packages.tsv" 2>/dev/null |
  head -n 10 | awk -F'\t' '{ printf "%s:%s %d; ", $1, $2, $3 }')"
echo "== slowest tests (pass:test seconds): $(sort -t$'\t' -k5,5 -g -r "$times" | head -n 12 |
  awk -F'\t' '{ sub(/^TestAcc/, "", $3); printf "%s:%s %d; ", $1, $3, $5 }')"

# The CPU seconds: the machine's, each pass's own, and the ten processes
# beside them (by name) that used the most since the tests began.
processes_cpu end
read -r busy0 all0 <"$cpu/machine.start"
read -r busy1 all1 < <(machine_cpu)
hz="$(getconf CLK_TCK)"
echo "== CPU seconds: busy $(((busy1 - busy0) / hz)) of $(((all1 - all0) / hz)); passes' own: $(tr '\n' ' ' <"$cpu/passes" 2>/dev/null);" \
  "beside them: $(cat "$cpu/cluster" "$cpu/end" 2>/dev/null | awk -v start="$cpu/start" '
    BEGIN { while ((getline line < start) > 0) { split(line, f, " "); before[f[1] " " f[2]] = f[3] } }
    { t[$1 " " $2] = $3 }
    END { for (k in t) { split(k, f, " "); by[f[2]] += t[k] - before[k] }
      for (n in by) if (by[n] > 0) print by[n], n }' | sort -rn | head -n 10 | awk '{ printf "%s %d; ", $2, $1 }')"

after="$(canary_state)"
if [ "$after" != "$before" ]; then
  echo "the machine's engine was disturbed: the canary was '$before', and is now '$after'" >&2
  failed+=(canary)
else
  echo "== canary untouched: $after"
fi
if [ "${#failed[@]}" -gt 0 ]; then
  # CI shows the end of its log: the failed tests, whose output is above.
  echo "== tests that failed (pass, package, test, seconds):" >&2
  awk -F'\t' '$4 == "fail" { sub(/.*\//, "", $2); printf "   %s\t%s\t%s\t%ss\n      %s\n", $1, $2, $3, $5, $6 }' "$times" >&2
  image_events >&2
  echo "tests failed: ${failed[*]}" >&2
  exit 1
fi
