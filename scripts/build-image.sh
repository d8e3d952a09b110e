#!/usr/bin/env bash
# Builds a small local image from Debian's statically linked busybox, with no
# registry and no Dockerfile: a root filesystem of busybox and its applet
# links, plus /bin/euid (scripts/euid, setuid root) for the privilege tests,
# imported with `docker import`. Usage: build-image.sh [IMAGE]
set -euo pipefail

image="${1:-tfsandbox/busybox:latest}"
# Bump when the image's content changes, so that older builds are replaced.
version=3
repo="$(cd "$(dirname "$0")/.." && pwd)"

have="$(docker image inspect -f '{{index .Config.Labels "tfsandbox.test-image-version"}}' "$image" 2>/dev/null || true)"
if [ "$have" = "$version" ]; then
  echo "image: $image is present"
  exit 0
fi

busybox=/bin/busybox
if ! dpkg -s busybox-static >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "image: Debian's busybox-static is needed: sudo apt-get install busybox-static" >&2
    exit 1
  fi
  echo "image: installing Debian's busybox-static"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
fi
if ldd "$busybox" >/dev/null 2>&1; then
  echo "image: $busybox is dynamically linked; install busybox-static" >&2
  exit 1
fi

root="$(mktemp -d)"
# mktemp makes it 0700; an image's root is 0755, or no user but root could
# reach anything in it (rootless Podman keeps the mode the tar gives it).
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/root"
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$root/bin/euid" ./scripts/euid)
chmod 4755 "$root/bin/euid"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
  docker import \
    --change 'ENV PATH=/bin' \
    --change 'CMD ["sh"]' \
    --change 'LABEL org.opencontainers.image.description="busybox built locally for terraform-provider-sandbox"' \
    --change "LABEL tfsandbox.test-image-version=$version" \
    - "$image" >/dev/null
echo "image: built $image from $busybox"
