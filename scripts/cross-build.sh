#!/usr/bin/env bash
# Builds the provider for every platform .goreleaser.yml names (its goos and
# goarch lists, less its ignore entries), as the release builds it (no cgo,
# trimmed paths, the embedded helpers): a platform that does not compile
# fails here, not at the release. Only the binaries are built (no zip, no
# GoReleaser), through the build cache every other step shares.
# SANDBOX_CROSS_JOBS builds run side by
# side (default 1: CI runs this beside the acceptance tests, niced).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
config=.goreleaser.yml

# The release configuration's one-line lists, such as
#   goos: [linux, darwin, freebsd, windows]
#   - { goos: darwin, goarch: arm }
list() { sed -n "s/^ *$1: *\[\(.*\)\] *\$/\1/p" "$config" | tr -d '" ' | tr ',' ' '; }
goos="$(list goos)" goarch="$(list goarch)"
[ -n "$goos" ] && [ -n "$goarch" ] ||
  { echo "cross-build: no goos or goarch list in $config" >&2; exit 1; }
ignored="$(sed -n 's/^ *- *{ *goos: *\([a-z0-9]*\), *goarch: *"\{0,1\}\([a-z0-9]*\)"\{0,1\} *}.*$/\1\/\2/p' "$config")"
targets=()
for os in $goos; do
  for arch in $goarch; do
    grep -qx "$os/$arch" <<<"$ignored" || targets+=("$os/$arch")
  done
done
echo "cross-build: ${#targets[@]} platforms: ${targets[*]}"

make --no-print-directory helpers
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
build() {
  local os="${1%/*}" arch="${1#*/}" start=$SECONDS bin
  bin="$out/terraform-provider-sandbox_${os}_${arch}"
  if ! CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath -ldflags '-s -w' -o "$bin" . 2>"$bin.log"; then
    echo "cross-build: $1 does not build:" >&2
    cat "$bin.log" >&2
    return 1
  fi
  echo "cross-build: $1 built in $((SECONDS - start)) s ($(wc -c <"$bin") bytes)"
}
export -f build
export out
printf '%s\n' "${targets[@]}" | xargs -P "${SANDBOX_CROSS_JOBS:-1}" -I{} bash -c 'build {}'
