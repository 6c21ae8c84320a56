#!/bin/bash
# deps.sh — install the Debian packages the toolchains/ scripts need, and only those
# that are missing. Idempotent: on a machine that has them all it changes nothing and
# needs no network. "apt-get update" runs only when a needed package is not installable
# from the current package lists. Needs root (or sudo) only when something is missing.
set -euo pipefail

PKGS=(
    clang lld llvm llvm-14-linker-tools  # clang 14 for all targets, ld.lld, llvm-ar, LTO plugin
    binutils-arm-linux-gnueabihf         # GNU ld for armeb (-EB --be8)
    linux-libc-dev                       # Linux UAPI headers, x86_64
    linux-libc-dev-arm64-cross           # ... aarch64 and aarch64_be
    linux-libc-dev-armhf-cross           # ... armv7l and armeb
    qemu-user                            # qemu-aarch64 qemu-aarch64_be qemu-arm qemu-armeb
    dpkg-dev                             # dpkg-source, for apt-get source
    debian-archive-keyring make xz-utils file
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
for p in "${PKGS[@]}"; do
    installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "toolchains/deps.sh: all ${#PKGS[@]} packages present" >&2
    exit 0
fi

SUDO=
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null ||
        { echo "toolchains/deps.sh: need root to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive

for p in "${missing[@]}"; do
    if ! installable "$p"; then
        echo "toolchains/deps.sh: $p not in the package lists; running apt-get update" >&2
        $SUDO apt-get -q update >&2
        break
    fi
done
echo "toolchains/deps.sh: installing ${missing[*]}" >&2
$SUDO apt-get -q install -y --no-install-recommends "${missing[@]}" >&2
