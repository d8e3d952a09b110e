#!/bin/sh
# Prints the provider's version: the one of CHANGELOG.md's top entry
# ("## 0.1.0 (Unreleased)" gives 0.1.0). Builds stamp it into the binary
# (main.version), `make install` names the local mirror's directory after
# it, and a release tags it.
set -eu
version="$(sed -n 's/^## \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*[^ ]*\).*/\1/p' "$(dirname "$0")/../CHANGELOG.md" | head -n 1)"
[ -n "$version" ] || { echo "version.sh: CHANGELOG.md has no \"## X.Y.Z\" entry at its top" >&2; exit 1; }
echo "$version"
