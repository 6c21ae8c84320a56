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
    linux-libc-dev-riscv64-cross         # ... riscv64
    qemu-user                            # qemu-aarch64 qemu-aarch64_be qemu-arm qemu-armeb qemu-riscv64
    dpkg-dev                             # dpkg-source, for apt-get source
    debian-archive-keyring make xz-utils file
)

exec "$(dirname "$0")/../ci/apt-missing.sh" toolchains/deps.sh "${PKGS[@]}"
