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
	libglib2.0-dev-bin             # glib-compile-resources: the UI's .ui templates into the module
	linux-perf                     # the oracle in tests
	clang lld llvm libclang-rt-14-dev  # fuzzing, sanitizers, cross builds
	valgrind
	strace                         # the oracle of the slow-system-call tests (durations)
	man-db groff-base              # man renders the installed man pages (cli-install test)
	xvfb xauth xdotool imagemagick # UI tests and screenshots (xauth: xvfb-run needs it, a Recommends of xvfb that --no-install-recommends leaves out)
	libprotobuf-c-dev              # pprof export
	golang-go                      # `go tool pprof` reads our pprof in tests
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross  # ARM symbol and EHABI unwind tests (armhf libc: .ARM.exidx only)
	libc6-dbg                      # the symbols tests read libc's separate debug file (.build-id)
	openssh-server openssh-client  # ssh:// tests: a private sshd on loopback (started by the test, never the system service) and the ssh client the viewer runs
	libdebuginfod-dev              # debuginfod.h: the viewer fetches debug files of sampled modules (libdw's client, libdebuginfod)
	debuginfod                     # the real server the debuginfod test starts on loopback (its systemd unit is not enabled by the test)
	clickhouse-server              # the fleet store: started by the tests and `make clickhouse` as a user process on loopback (ci/clickhouse/), never the system service
	libcurl4-openssl-dev curl      # the fleet store's HTTP client (libcurl); curl: ci/clickhouse/server.sh's readiness check, the unauthenticated-request test
	bzip2                          # a real program the fleet store's test records
	time                           # /usr/bin/time: the findings test's page-fault oracle (its minor + major fault counts)
)

# Everything the whole run needs is installed here, before any build or
# test: the static toolchains', the emulated boards' and the real-program
# matrix's packages too.  A test only checks (PL_APT_CHECK=1) and fails
# when something is missing, so a package missing from these lists shows
# on the first run of a fresh machine instead of being installed halfway
# through it.
here=$(dirname "$0")
"$here/../toolchains/deps.sh"
"$here/../test/boards/deps.sh"
"$here/../test/realworld/deps.sh"   # the real-program matrix: perf, python3, nodejs, unpackers
exec "$here/apt-missing.sh" ci/deps.sh "${pkgs[@]}"
