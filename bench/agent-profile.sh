#!/usr/bin/env bash
# bench/agent-profile.sh — where the agent's own CPU time goes, by perf.
#
#   bench/agent-profile.sh [BUILD_DIR] [INPUT_MIB]      (defaults: build 8)
#
# For fp and dwarf at 999 Hz: the agent records zstd (--pid, like
# overhead.sh) while `perf record -g` (cpu-clock, 4999 Hz) samples the agent
# itself (the host agent keeps frame pointers).  Prints the top functions by
# self time and by inclusive time into bench/results/agent-profile.md.
set -euo pipefail
build=${1:-build}
mib=${2:-8}
BENCH_CMD="bench/agent-profile.sh $build $mib"
. "$(dirname "$0")/lib.sh"
bench_prepare "$build" "$mib"
{
	bench_header "Where the agent's CPU goes (perf record -g on the agent, 999 Hz sessions)"
	for mode in fp dwarf; do
		bench_start_target "$(bench_zstd $mode)"
		target=$TARGET
		"$AGENT" --output "$BTMP/o.plens" --pid "$target" --frequency 999 --callgraph $mode \
			--no-offcpu --no-counters 2>/dev/null &
		ag=$!
		BENCH_PIDS+=("$ag")
		sleep 0.5 # past the start-up probe
		perf record -q -g -F 4999 -p "$ag" -o "$BTMP/agent.data" 2>/dev/null &
		pr=$!
		wait "$ag" || true
		wait "$pr" || true
		wait "$target" || true
		n=$(perf script -i "$BTMP/agent.data" -F tid 2>/dev/null | wc -l)
		echo "## $mode, 999 Hz: $n agent samples at 4999 Hz (≈ $(awk -v n="$n" 'BEGIN {printf "%.0f", n / 4.999}') ms of agent CPU)"
		echo
		echo "By binary (self time):"
		echo
		echo '```'
		perf report -i "$BTMP/agent.data" --stdio --no-children -g none --sort dso 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 8
		echo '```'
		echo
		echo "Self time (top 25):"
		echo
		echo '```'
		perf report -i "$BTMP/agent.data" --stdio --no-children -g none --percent-limit 1 \
			--sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 25
		echo '```'
		echo
		echo "Inclusive (children) time, top 25:"
		echo
		echo '```'
		perf report -i "$BTMP/agent.data" --stdio --children -g none --percent-limit 3 \
			--sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 25
		echo '```'
		echo
	done
} >"$outdir/agent-profile.md"
cat "$outdir/agent-profile.md"
