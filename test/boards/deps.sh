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
	qemu-system-misc opensbi        # qemu-system-riscv64 and its M-mode firmware (riscv64 board)
	gcc-riscv64-linux-gnu libc6-dev-riscv64-cross   # riscv64 workloads
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross     # arm64 workloads
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross   # armv7 workloads
	cpio gzip                       # the initramfs
	dpkg-dev debian-archive-keyring # dpkg-deb; the archive key for the private apt
	# the big-endian and riscv64 boards' kernels, built from Debian's own source
	# (kernel.sh): no Debian 12 kernel package exists for aarch64_be, armeb or riscv64
	linux-source-6.1 xz-utils bc bison flex libssl-dev
)

exec "$(dirname "$0")/../../ci/apt-missing.sh" test/boards/deps.sh "${pkgs[@]}"
