#!/usr/bin/env bash
# The real-program matrix (test/realworld/run.sh): programs this project did
# not write, profiled by PerfLens and by perf on the same workload, their
# top self symbols and thread-start shares compared; the table goes to
# BUILD/realworld/results.md (`test/realworld/run.sh --docs` writes
# docs/REALWORLD.md).
set -u
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PL_BUILD:-$top/build}
case "$build" in
*build-san)
	# perf is the oracle of the viewer's answers on real programs, not of
	# memory errors: the ASan build runs every other test.  Once is enough.
	echo "skip realworld: [by-design] the real-program matrix runs once, with the plain build (this is $(basename "$build"))"
	exit 0 ;;
esac
# test/run.sh points XDG_CACHE_HOME at a scratch directory per run; the
# programs built from Debian source are kept beside the toolchains' cache
# (minutes to rebuild, keyed by version), as the boards' and bench's are.
if [ -z "${PL_REALWORLD_CACHE:-}" ] && [ -n "${PERFLENS_TC_CACHE:-}" ]; then
	export PL_REALWORLD_CACHE=$(dirname "$PERFLENS_TC_CACHE")/realworld
fi
exec "$top/test/realworld/run.sh"
