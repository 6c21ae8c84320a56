#!/usr/bin/env bash
# bench/latency.sh — sample-to-screen latency: how old a sample is when the
# viewer side has decoded it.  PerfLens live stream vs the live form of the
# seed design's pipeline, `perf record -o - | perf script -i -`.
#
#   bench/latency.sh [BUILD_DIR] [RUNS] [SECONDS]      (defaults: build 3 6)
#
# For 99 and 999 Hz, fp and dwarf, RUNS rounds alternating (order flipped
# each round), each measuring SECONDS of a running zstd compression:
#   PerfLens  perflens-agent --listen on loopback; pl-latency connects like
#             a viewer, STARTs --pid ZSTD and decodes with common/reader.c
#             (the viewer core's reader): latency = CLOCK_MONOTONIC after
#             decoding − the sample's CLOCK_MONOTONIC timestamp
#   perf      perf record -k CLOCK_MONOTONIC -F HZ --call-graph ...
#             --user-callchains -p ZSTD -o - | perf script -i - (line
#             buffered) | pl-latency perf-script
# Medians over rounds of each run's p50/p99, and the largest max.  Goal:
# p99 ≤ 1 s.  Writes bench/results/latency.md.
set -euo pipefail
build=${1:-build}
runs=${2:-3}
secs=${3:-6}
BENCH_CMD="bench/latency.sh $build $runs $secs"
. "$(dirname "$0")/lib.sh"
# long enough to outlast the measurement; killed when done
bench_prepare "$build" 32
token=bench-$$

# prints pl-latency's line: samples N p50_ms X p90_ms X p99_ms X max_ms X lost N
run_perflens() {
	local mode=$1 hz=$2 port
	port=$((20000 + RANDOM % 20000))
	bench_start_target "$(bench_zstd "$mode")" 0.3
	"$AGENT" --listen --bind 127.0.0.1 --port "$port" --token "$token" 2>"$BTMP/agent.log" &
	local ag=$!
	BENCH_PIDS+=("$ag")
	"$PL_LATENCY" agent "$port" "$token" "$TARGET" "$hz" "$mode" "$secs" ||
		{ cat "$BTMP/agent.log" >&2; bench_die "pl-latency failed (agent log above)"; }
	bench_stop "$ag"
	bench_stop "$TARGET"
}

run_perf() {
	local mode=$1 hz=$2
	bench_start_target "$(bench_zstd "$mode")" 0.3
	rm -f "$BTMP/fifo"
	mkfifo "$BTMP/fifo"
	perf record -q -k CLOCK_MONOTONIC -F "$hz" --call-graph "$(bench_perf_cg "$mode")" --user-callchains \
		-p "$TARGET" -o - >"$BTMP/fifo" 2>"$BTMP/perf.log" &
	local pr=$!
	BENCH_PIDS+=("$pr")
	# perf script dies of SIGPIPE when pl-latency is done: only the latter's
	# output counts
	local res
	res=$(stdbuf -oL perf script -i - <"$BTMP/fifo" 2>/dev/null | "$PL_LATENCY" perf-script "$secs") || true
	[ -n "$res" ] || { cat "$BTMP/perf.log" >&2; bench_die "the perf pipeline failed (log above)"; }
	echo "$res"
	bench_stop "$pr"
	bench_stop "$TARGET"
}

# one run of a side; no sample reached the viewer side within the window:
# each percentile counts as the window (a lower bound), flagged
run_side() {
	local line
	if [ "$1" = perflens ]; then
		line=$(run_perflens "$2" "$3")
	else
		line=$(run_perf "$2" "$3")
	fi
	case "$line" in *">"*) line="${line//>/} none-within-window" ;; esac
	echo "$line"
}

bench_log "latency: $runs rounds x 4 configurations x (PerfLens, perf), ${secs} s each"
BENCH_ROWS=$BTMP/rows
: >"$BENCH_ROWS"
bench_rounds "$runs" run_side perflens perf

# fields: 1 hz 2 mode 3 side 5 samples 7 p50 9 p90 11 p99 13 max 15 lost
col() { bench_col "$@"; }
{
	bench_header "Sample-to-screen latency: PerfLens live stream vs perf record | perf script"
	echo "Latency = CLOCK_MONOTONIC when the sample is decoded on the viewer side − the sample's own CLOCK_MONOTONIC timestamp"
	echo "(same host, loopback). Medians over $runs runs of each run's percentiles; max is the largest over all runs. Goal: p99 ≤ 1 s."
	echo "≥: in some runs no sample came out of the perf pipeline within the ${secs} s window (perf record writes when its"
	echo "ring is half full: at low rates that takes longer than the window), counted as ${secs} s — a lower bound."
	echo
	echo "| Hz | mode | PerfLens p50 / p99 / max ms | perf pipeline p50 / p99 / max ms | p99 ratio perf / PerfLens | samples per run PerfLens / perf | goal (PerfLens p99 ≤ 1000 ms) |"
	echo "|---|---|---|---|---|---|---|"
	for hz in 99 999; do
		for mode in fp dwarf; do
			l50=$(col $hz $mode perflens 7); l99=$(col $hz $mode perflens 11); lmax=$(col $hz $mode perflens 13 maxof)
			p50=$(col $hz $mode perf 7); p99=$(col $hz $mode perf 11); pmax=$(col $hz $mode perf 13 maxof)
			ls=$(col $hz $mode perflens 5); ps=$(col $hz $mode perf 5)
			ratio=$(awk -v a="$p99" -v b="$l99" 'BEGIN {printf "%.0f×", a / b}')
			if grep -q "^$hz $mode perf .*none-within-window" "$BENCH_ROWS"; then
				p50="≥$p50"; p99="≥$p99"; pmax="≥$pmax"; ratio="≥$ratio"
			fi
			goal=$(awk -v a="$l99" 'BEGIN {print (a <= 1000) ? "met" : "**missed**"}')
			echo "| $hz | $mode | $l50 / $l99 / $lmax | $p50 / $p99 / $pmax | $ratio | $ls / $ps | $goal |"
		done
	done
	echo
	echo "<details><summary>Every run</summary>"
	echo
	echo '```'
	cat "$BENCH_ROWS"
	echo '```'
	echo "</details>"
} >"$outdir/latency.md"
cat "$outdir/latency.md"
