#!/usr/bin/env bash
# Every fuzz harness replays its seed corpus and its regression inputs (each
# a bug found once), then fuzzes briefly: fuzz/run.sh check.  Once per
# `make check`, with the plain build (the harnesses carry their own
# sanitizers).
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
case "${PL_BUILD:-build}" in *-san)
	echo "skip fuzz: [by-design] the harnesses are sanitizer builds already; run once"; exit 0 ;;
esac
command -v clang >/dev/null || { echo "not ok fuzz: clang not installed (ci/deps.sh)"; exit 1; }
cd "$top" && BUILD=$(basename "${PL_BUILD:-build}") fuzz/run.sh check
