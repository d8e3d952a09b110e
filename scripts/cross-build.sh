#!/usr/bin/env bash
# Checks that the provider builds for every platform .goreleaser.yml names
# (its goos and goarch lists, less its ignore entries), as the release
# builds it (no cgo, trimmed paths, the embedded helpers), so that a
# platform that does not compile fails here, not at the release:
#
#   - every platform is type-checked from source, the provider's packages
#     and every package they import (tools/crosscheck: the compiler's front
#     end, some 5 CPU-seconds a platform), which finds what fails to compile
#     on one platform (a symbol, a type or a constant that differs, a file no
#     build constraint selects);
#   - the platforms SANDBOX_CROSS_BUILD names (default: macOS on arm64 and
#     Windows on amd64, where users run Terraform beside Linux) are also
#     compiled and linked in full, which finds what only the linker sees.
#     A full build is some 220 CPU-seconds a platform with an empty cache,
#     which CI's two cores cannot spend on all 13.
#
# SANDBOX_CROSS_BUILD=all builds every platform in full, =none none (CI:
# its two cores are the limit of its time, and the release check builds
# this platform in full). SANDBOX_CROSS_JOBS
# builds run side by side (default 1: CI runs this beside the acceptance
# tests, niced).
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
echo "cross-build: type-checking every platform"
(cd tools && go run ./crosscheck -dir .. "${targets[@]}" -- .)

full="${SANDBOX_CROSS_BUILD:-darwin/arm64 windows/amd64}"
[ "$full" != all ] || full="${targets[*]}"
[ "$full" != none ] || full=""
for t in $full; do
  printf '%s\n' "${targets[@]}" | grep -qx "$t" || { echo "cross-build: $t is not a platform of $config" >&2; exit 1; }
done
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
[ -n "$full" ] || { echo "cross-build: no platform built in full (SANDBOX_CROSS_BUILD=none)"; exit 0; }
# shellcheck disable=SC2086 # the platforms are words
printf '%s\n' $full | xargs -P "${SANDBOX_CROSS_JOBS:-1}" -I{} bash -c 'build {}'
