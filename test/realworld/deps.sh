#!/usr/bin/env bash
# test/realworld/deps.sh — the host packages the real-program matrix needs,
# installed up front by ci/deps.sh (only those missing); the matrix itself
# runs this with PL_APT_CHECK=1 and fails when one is missing.  The
# programs are built from Debian source packages (build.sh) with nothing
# but the compilers: none of their build dependencies is needed.
set -euo pipefail

pkgs=(
	linux-perf                      # the oracle
	dpkg-dev debian-archive-keyring # apt-get source through the private deb-src lists
	xz-utils bzip2                  # unpacking lzip's and bzip2's source packages
	gcc g++ binutils                # building bzip2, lzip, pbzip2; objcopy for the stripped case
	python3                         # the dlopen case (ctypes dlopens libbz2.so)
	nodejs                          # the JIT case (node --perf-basic-prof)
)

exec "$(dirname "$0")/../../ci/apt-missing.sh" test/realworld/deps.sh "${pkgs[@]}"
