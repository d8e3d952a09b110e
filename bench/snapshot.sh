# The snapshot rows of bench/run.sh, which sources this file (its $work,
# $image, $rounds, $results, $median_awk and tf): a volume of
# BENCH_SNAPSHOT_MB MiB in BENCH_SNAPSHOT_FILES files, snapshotted and
# restored by the provider (bench/snapshot/main.tf), against the floor of
# streaming the same tar through the engine's archive endpoint with no
# provider: a helper container that mounts the volume, `docker cp` out to
# a file, and in from it into a new volume. Targets: within 1.3x of the
# floor each way, and the provider's peak RSS under 64 MiB while it
# streams (it never holds an archive in memory).

snap_mb="${BENCH_SNAPSHOT_MB:-1024}"
snap_files="${BENCH_SNAPSHOT_FILES:-10000}"
snap_volume=tfbench-snap
snap_dir="$work/snapshots"
mkdir -p "$snap_dir"

echo "== snapshot rows: filling $snap_volume with $snap_mb MiB in $snap_files files"
docker volume create "$snap_volume" >/dev/null
# 100 directories of files of equal size, random bytes (nothing
# compresses or dedupes them).
docker run --rm --network none -v "$snap_volume:/v" "$image" sh -c "
  per=\$(( $snap_mb * 1048576 / $snap_files )); i=0
  while [ \$i -lt $snap_files ]; do
    d=/v/d\$((i % 100)); mkdir -p \$d
    head -c \$per /dev/urandom > \$d/f\$i; i=\$((i + 1))
  done"

# snap_floor PHASE: the floor of one phase, timed as tf times the
# provider's: take (a helper mounting the volume, its archive out to a
# file) or restore (a new volume, a helper mounting it, the file in).
snap_floor() {
  local phase="$1" start end cid
  "$work/settle"
  start="$(now)"
  if [ "$phase" = take ]; then
    cid="$(docker create --network none -v "$snap_volume:/seed:ro" "$image")"
    docker cp "$cid:/seed" - >"$work/floor.tar"
  else
    docker volume create "$snap_volume-floor" >/dev/null
    cid="$(docker create --network none -v "$snap_volume-floor:/seed" "$image")"
    docker cp - "$cid:/" <"$work/floor.tar"
  fi
  docker rm "$cid" >/dev/null
  end="$(now)"
  printf '%s\tsnapfloor\t%s\t%s\t0\t0\t%s\t0\n' "$snap_mb" "$phase" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b-a}')" "$round" >>"$results"
}

export TF_VAR_volume="$snap_volume" TF_VAR_dir="$snap_dir"
for round in $(seq "$rounds"); do
  echo "== snapshot round $round/$rounds"
  snap_floor take
  tfdir=tf-snapshot where=snapshot tf take "$snap_mb" apply -auto-approve
  taken="$(terraform -chdir="$work/tf-snapshot" output -json snapshot)"
  snap_floor restore
  docker volume rm "$snap_volume-floor" >/dev/null
  tfdir=tf-snapshot where=snapshot tf restore "$snap_mb" apply -auto-approve -var "restore=$taken"
  terraform -chdir="$work/tf-snapshot" destroy -auto-approve -input=false -no-color -var "n=$snap_mb" \
    -var "restore=$taken" >"$work/tf-snapshot-destroy.log" 2>&1
  rm -f "$snap_dir"/*.tar "$work/floor.tar"
done
docker volume rm "$snap_volume" >/dev/null

# The deep tree's row (issue 46): BENCH_SNAPSHOT_DEEP empty files in a
# directory BENCH_SNAPSHOT_DEPTH levels down, snapshotted, against the
# floor of `docker cp` of the same volume: checking an entry must cost the
# same at any depth, and memory per entry is what max_files says.
deep_files="${BENCH_SNAPSHOT_DEEP:-100000}"
deep_depth="${BENCH_SNAPSHOT_DEPTH:-100}"
deep_volume=tfbench-deep
echo "== deep tree row: $deep_files files at depth $deep_depth"
docker volume create "$deep_volume" >/dev/null
docker run --rm --network none -v "$deep_volume:/v" "$image" sh -c "
  d=/v; i=0; while [ \$i -lt $deep_depth ]; do d=\$d/d; i=\$((i + 1)); done
  mkdir -p \$d && cd \$d && i=0; while [ \$i -lt $deep_files ]; do : > f\$i; i=\$((i + 1)); done"
for round in $(seq "$rounds"); do
  snap_volume="$deep_volume" snap_mb=deep snap_floor take
  TF_VAR_volume="$deep_volume" tfdir=tf-snapshot where=snapshot tf deeptake 1 apply -auto-approve \
    -var "max_files=$((deep_files + deep_depth + 1))"
  terraform -chdir="$work/tf-snapshot" destroy -auto-approve -input=false -no-color -var n=1 \
    -var "max_files=$((deep_files + deep_depth + 1))" -var "volume=$deep_volume" >"$work/tf-deep-destroy.log" 2>&1
  rm -f "$snap_dir"/*.tar "$work/floor.tar"
done
docker volume rm "$deep_volume" >/dev/null

# The cluster's rows (issue 46): the same volume as a claim on the test
# cluster, snapshotted and restored by the provider through its helper pods
# (bench/snapshotcluster/main.tf), against the floor of tar through a pod's
# exec stream, as kubectl exec runs it (bench/clustertar): a pod that mounts
# the claim, made and deleted, its archive out to a file, or into a new
# claim. Target: within 1.5x each way.
if [ "${cluster_counts:-0}" != 0 ]; then
  snap_claim=tfbench-snap
  ctar() {
    "$work/clustertar" -kubeconfig "$SANDBOX_TEST_KUBECONFIG" -image "$image" -size-mb $((2 * snap_mb)) "$@"
  }
  echo "== cluster snapshot rows: filling the claim $snap_claim with $snap_mb MiB in $snap_files files"
  ctar -claim "$snap_claim" -mb "$snap_mb" -files "$snap_files" fill
  export TF_VAR_kubeconfig="$SANDBOX_TEST_KUBECONFIG" TF_VAR_namespace=default
  for round in $(seq "$rounds"); do
    echo "== cluster snapshot round $round/$rounds"
    "$work/settle"
    printf '%s\tsnapfloor\tk8s-take\t%s\t0\t0\t%s\t0\n' "$snap_mb" \
      "$(ctar -claim "$snap_claim" -file "$work/floor.tar" take)" "$round" >>"$results"
    TF_VAR_volume="$snap_claim" tfdir=tf-snapcluster where=snapshot tf k8s-take "$snap_mb" apply -auto-approve
    taken="$(terraform -chdir="$work/tf-snapcluster" output -json snapshot)"
    "$work/settle"
    printf '%s\tsnapfloor\tk8s-restore\t%s\t0\t0\t%s\t0\n' "$snap_mb" \
      "$(ctar -claim "$snap_claim-floor" -file "$work/floor.tar" restore)" "$round" >>"$results"
    ctar -claim "$snap_claim-floor" delete
    TF_VAR_volume="$snap_claim" tfdir=tf-snapcluster where=snapshot tf k8s-restore "$snap_mb" apply -auto-approve \
      -var "restore=$taken"
    TF_VAR_volume="$snap_claim" terraform -chdir="$work/tf-snapcluster" destroy -auto-approve -input=false -no-color \
      -var "n=$snap_mb" -var "restore=$taken" >"$work/tf-snapcluster-destroy.log" 2>&1
    rm -f "$snap_dir"/*.tar "$work/floor.tar"
  done
  ctar -claim "$snap_claim" delete
fi

echo
echo "A volume of $snap_mb MiB in $snap_files files, snapshotted and restored, medians of $rounds rounds"
echo "(targets: within 1.3x of the floor each way; the provider's peak RSS under 64 MiB)."
echo
# The targets are judged at the size they are set for: below it, the
# fixed costs of a terraform run and a helper dominate both ways.
awk -F'\t' -v judged="$([ "$snap_mb" -ge 1024 ] && echo 1 || echo 0)" -v deep_files="$deep_files" \
  -v deep_depth="$deep_depth" "$median_awk"'
  function verdict(ok) { if (!judged) return "not judged below 1024 MiB"; if (!ok) missed++; return ok ? "met" : "NOT MET" }
  $2 == "snapshot" || $2 == "snapfloor" { secs[$2, $3 == "take" && $1 == "deep" ? "deep" : $3] = secs[$2, $3 == "take" && $1 == "deep" ? "deep" : $3] " " $4 }
  $2 == "snapshot" && $5 > rss[$3] { rss[$3] = $5 }
  END {
    printf "| phase   | floor (s) | provider (s) | ratio | peak RSS (MiB) | target  |\n"
    printf "|---------|----------:|-------------:|------:|---------------:|---------|\n"
    split("take restore", phases, " ")
    for (i = 1; i <= 2; i++) {
      p = phases[i]; f = median(secs["snapfloor", p]); v = median(secs["snapshot", p])
      printf "| %-7s | %9.2f | %12.2f | %5.2f | %14.1f | %-7s |\n", p, f, v, v / f, rss[p] / 1024, verdict(v <= 1.3 * f && rss[p] < 64 * 1024)
    }
    f = median(secs["snapfloor", "k8s-take"])
    if (f > 0) {
      printf "\n| on the test cluster | floor: tar through a pod'"'"'s exec (s) | provider (s) | ratio | peak RSS (MiB) | target (1.5x) |\n"
      printf "|---|---:|---:|---:|---:|---|\n"
      for (i = 1; i <= 2; i++) {
        p = "k8s-" phases[i]; f = median(secs["snapfloor", p]); v = median(secs["snapshot", p])
        printf "| %s | %.2f | %.2f | %.2f | %.1f | %s |\n", phases[i], f, v, v / f, rss[p] / 1024, verdict(v <= 1.5 * f)
      }
    }
    f = median(secs["snapfloor", "deep"]); v = median(secs["snapshot", "deeptake"])
    if (v > 0) {
      printf "\n| deep tree (%d files at depth %d) | floor (s) | provider (s) | ratio | peak RSS (MiB) |\n", deep_files, deep_depth
      printf "|---|---:|---:|---:|---:|\n"
      printf "| take | %.2f | %.2f | %.2f | %.1f |\n", f, v, v / f, rss["deeptake"] / 1024
    }
    exit missed > 0
  }' "$results" | tee "$work/snapshot.md"
[ "${PIPESTATUS[0]}" = 0 ]
