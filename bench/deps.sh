#!/usr/bin/env bash
# bench/deps.sh — the host packages the benchmarks of bench/ need beyond
# a build (ci/deps.sh), installed when missing (only those; root or sudo
# then).  `make bench` runs it first; PL_APT_CHECK=1 bench/deps.sh only
# names what is missing.
set -euo pipefail

pkgs=(
	linux-perf                      # perf record (the recordings) and perf report, an anchor
	zstd time python3               # bench/lib.sh; /usr/bin/time; python3: bench/ingest.sh times runs (wait4)
	dpkg-dev debian-archive-keyring # apt-get source libzstd (bench/workloads/zstd.sh), apt-get download hotspot
	gcc make                        # building the zstd workload from that source
	# hotspot-perfparser, bench/ingest.sh's anchor: Debian's hotspot package is
	# unpacked into the bench cache (not installed: its GUI would pull in all of
	# Qt), and the parser needs these two of Qt's libraries
	libqt5core5a libqt5network5
)

exec "$(dirname "$0")/../ci/apt-missing.sh" bench/deps.sh "${pkgs[@]}"
