#!/usr/bin/env bash
# ci/deps.sh — installs what building and testing PerfLens needs on Debian 12.
# Idempotent: asks apt only for packages that are missing, and runs
# `apt-get update` only when one of them cannot be found in the lists.
set -euo pipefail

pkgs=(
	build-essential pkg-config make
	libzstd-dev zstd               # wire compression (agent and viewer)
	libdw-dev libelf-dev           # symbolization and unwinding (viewer)
	libglib2.0-dev                 # viewer core
	libgtk-4-dev                   # viewer UI
	linux-perf                     # the oracle in tests
	clang lld llvm libclang-rt-14-dev  # fuzzing, sanitizers, cross builds
	valgrind
	xvfb xdotool imagemagick       # UI tests and screenshots
	libprotobuf-c-dev              # pprof export
	golang-go                      # `go tool pprof` reads our pprof in tests
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ci/deps.sh: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
	$SUDO apt-get update -q
	$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
