#!/usr/bin/env bash
# test/boards/deps.sh — installs the host packages the emulated-board tests
# need, and only those that are missing.  Idempotent: on a machine that has
# them all it changes nothing and needs no network; `apt-get update` runs
# only when a missing package is not installable from the current lists.
#
# The guest's own files (kernels, busybox) are NOT installed here: they are
# foreign-architecture packages, fetched by fetch.sh with a private apt
# configuration so the machine's dpkg never learns about arm64/armhf.
set -euo pipefail

pkgs=(
	qemu-system-arm                 # qemu-system-aarch64 and qemu-system-arm
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross     # arm64 workloads
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross   # armv7 workloads
	cpio gzip                       # the initramfs
	dpkg-dev debian-archive-keyring # dpkg-deb; the archive key for the private apt
)

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}
installable() {
	local c
	c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "test/boards/deps.sh: need root to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
for p in "${missing[@]}"; do
	if ! installable "$p"; then
		echo "test/boards/deps.sh: $p not in the package lists; running apt-get update" >&2
		$SUDO apt-get -q update >&2
		break
	fi
done
echo "test/boards/deps.sh: installing ${missing[*]}" >&2
$SUDO apt-get -q install -y --no-install-recommends "${missing[@]}" >&2
