#!/usr/bin/env bash
# bench/size.sh — the agent's size per target architecture, next to what a
# board needs for `perf record` instead.
#
#   bench/size.sh [--no-build]
#
# Runs ci/agents.sh (the five static, stripped musl agents in dist/; it
# fails when one is over the 192 KiB budget) unless --no-build, then turns
# dist/sizes.md into bench/results/size.md with the perf binary of this
# host and the shared libraries it loads for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_CMD="bench/size.sh $*"
outdir=${PL_BENCH_OUT:-bench/results}
mkdir -p "$outdir"
status=0
if [ "${1:-}" != --no-build ]; then
	ci/agents.sh >&2 || status=$?
fi
[ -f dist/sizes.md ] || { echo "bench: dist/sizes.md missing: run ci/agents.sh" >&2; exit 1; }
budget=${PERFLENS_AGENT_BUDGET:-196608} # 192 KiB, as in ci/agents.sh
perf_bin=$(readlink -f "$(command -v perf)")
# Debian's /usr/bin/perf is a wrapper script: the real binary is perf_<version>
[ "$(head -c 2 "$perf_bin")" = "#!" ] && perf_bin=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -n 1)
perf_size=$(stat -c %s "$perf_bin")
libs_size=$(ldd "$perf_bin" | awk '$3 ~ /^\// {print $3}' | xargs -r readlink -f | sort -u | xargs -r stat -c %s | awk '{s += $1} END {print s + 0}')
nlibs=$(ldd "$perf_bin" | awk '$3 ~ /^\// {print $3}' | sort -u | wc -l)
{
	echo "# Agent binary size per architecture"
	echo
	echo "Produced by \`$BENCH_CMD\` on $(date -u '+%F %T UTC') from \`ci/agents.sh\` (dist/sizes.md, built $(date -u -r dist/sizes.md '+%F %T UTC'))."
	echo "Static, stripped musl binaries with a compression-only zstd (toolchains/). Goal: ≤$((budget / 1024)) KiB ($(echo "$budget" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta') bytes) each."
	echo
	echo "| target | bytes | KiB | of budget | static | goal |"
	echo "|---|---|---|---|---|---|"
	awk -F'|' -v b=$budget 'NR > 2 && $2 ~ /[a-z]/ {
		gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/^ | $/, "", $4)
		printf "| %s | %d | %.1f | %.0f%% | %s | %s |\n", $2, $3, $3 / 1024, 100 * $3 / b, $4, ($3 <= b) ? "met" : "**missed**"
	}' dist/sizes.md
	echo
	echo "For comparison, on this host \`perf\` is $(basename "$perf_bin"), $perf_size bytes ($((perf_size / 1024)) KiB), dynamically linked"
	echo "against $nlibs shared libraries totalling $libs_size bytes ($((libs_size / 1048576)) MiB) that a board would also need."
} >"$outdir/size.md"
cat "$outdir/size.md"
exit $status
