#!/usr/bin/env bash
# Checks the release artifacts as a registry user would meet them: checks
# .goreleaser.yml and builds this platform's snapshot with it (zip,
# SHA256SUMS and manifest, unsigned), checks the sums, and has
# `terraform init` install the provider from the zip through a filesystem
# mirror, offline, into a lock file with the zip's hash.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
version="$(scripts/version.sh)"
platform="$(go env GOOS)_$(go env GOARCH)"
name=terraform-provider-sandbox

# A release builds every platform; this builds this one's, from the same
# configuration with its platform lists narrowed (scripts/cross-build.sh
# builds every platform the release names, without GoReleaser).
make --no-print-directory release-check
config="$(mktemp --suffix=.yml)"
trap 'rm -f "$config"' EXIT
sed -e "s/^    goos: .*/    goos: [$(go env GOOS)]/" -e "s/^    goarch: .*/    goarch: [$(go env GOARCH)]/" .goreleaser.yml >"$config"
grep -q "^    goos: \[$(go env GOOS)\]" "$config" || { echo "release-check: cannot narrow .goreleaser.yml's goos" >&2; exit 1; }
VERSION="$version" go tool -modfile=tools/goreleaser/go.mod goreleaser release --snapshot --clean \
  --skip=sign,publish --config "$config"
zip="dist/${name}_${version}_${platform}.zip"
sums="dist/${name}_${version}_SHA256SUMS"
manifest="dist/${name}_${version}_manifest.json"
for f in "$zip" "$sums"; do [ -s "$f" ] || { echo "release-check: $f is missing" >&2; exit 1; }; done
(cd dist && sha256sum --check --ignore-missing --strict "$(basename "$sums")")
# The release uploads terraform-registry-manifest.json under the manifest's
# name; the sums, which the signature covers, must name it.
grep -q "^$(sha256sum terraform-registry-manifest.json | cut -d' ' -f1)  $(basename "$manifest")\$" "$sums" ||
  { echo "release-check: $sums does not cover $(basename "$manifest")" >&2; cat "$sums" >&2; exit 1; }
# Output is read whole before it is matched: under pipefail, `cmd | grep -q`
# fails at random, when grep exits on its match while cmd is still writing.
entries="$(unzip -Z1 "$zip")"
grep -qx "${name}_v${version}" <<<"$entries" ||
  { echo "release-check: $zip does not hold ${name}_v${version}; it holds: $entries" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp" "$config"' EXIT
mkdir -p "$tmp/mirror/registry.terraform.io/tfsandbox/sandbox" "$tmp/work" "$tmp/home"
cp "$zip" "$tmp/mirror/registry.terraform.io/tfsandbox/sandbox/"
cat >"$tmp/work/main.tf" <<TF
terraform {
  required_providers {
    sandbox = { source = "tfsandbox/sandbox", version = "= ${version}" }
  }
}
TF
HOME="$tmp/home" TF_CLI_CONFIG_FILE= TF_PLUGIN_CACHE_DIR= CHECKPOINT_DISABLE=1 \
  terraform -chdir="$tmp/work" init -input=false -no-color -plugin-dir="$tmp/mirror" | tee "$tmp/init.log"
grep -q "Installed tfsandbox/sandbox v${version}" "$tmp/init.log" ||
  { echo "release-check: terraform init did not install v${version} from the zip" >&2; exit 1; }
lock="$(grep -A4 'provider "registry.terraform.io/tfsandbox/sandbox"' "$tmp/work/.terraform.lock.hcl" || true)"
grep -q "version *= \"${version}\"" <<<"$lock" && grep -q '"h1:' "$tmp/work/.terraform.lock.hcl" ||
  { echo "release-check: the lock file does not pin v${version} with a hash:" >&2; cat "$tmp/work/.terraform.lock.hcl" >&2; exit 1; }
echo "release-check: $zip installs through a filesystem mirror, and the lock file pins it"
