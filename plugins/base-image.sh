#!/bin/sh
# Make a base image for the tfpolicy images from Debian packages, for machines that
# reach a Debian archive but no image registry (the project's CI). Usage:
#   plugins/base-image.sh IMAGE [MIRROR]
# MIRROR defaults to the archive apt already uses. The image holds python3 and venv;
# it lives in the engine's own storage, so later runs on the machine reuse it.
set -eu
image=$1
mirror=${2:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
if [ -z "$mirror" ]; then
  echo "base-image.sh: no Debian mirror given and none in apt's sources" >&2
  exit 2
fi
podman=${PODMAN:-podman}
rootfs=$(mktemp -d /var/tmp/tfpolicy-base.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
  bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || { tail -n 20 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
# Package caches and lists are of no use inside the image.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | "$podman" import - "$image" >/dev/null
echo "base-image.sh: built $image from Debian bookworm"
