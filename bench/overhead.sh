#!/usr/bin/env bash
# bench/overhead.sh — what profiling costs on the board: PerfLens agent vs
# `perf record`, attached to a busy multi-threaded real program.
#
#   bench/overhead.sh [BUILD_DIR] [RUNS] [INPUT_MIB]      (defaults: build 3 8)
#
# For 99 and 999 Hz, fp and dwarf, RUNS rounds of three runs of the same
# zstd compression (rotating their order each round, so that drifts of the
# shared machine's load hit all three alike):
#   none      zstd alone
#   PerfLens  perflens-agent --output F --pid ZSTD --frequency HZ
#             --callgraph MODE --no-offcpu --no-counters
#   perf      perf record -F HZ --call-graph fp|dwarf,8192 --user-callchains
#             -p ZSTD   (the same settings: user stacks, 8 KiB copies)
# fp mode profiles zstd built with frame pointers, dwarf mode zstd built
# with the distribution's flags (no frame pointers).  Measured:
#  - profiler CPU as % of one core in the steady state (schedstat ns, from
#    1 s after attaching, past the agent's start-up probe, until the target
#    exits) and over its whole life (utime+stime from wait4, probe and
#    perf's post-processing included);
#  - profiler peak RSS (VmHWM while recording; and ru_maxrss for the whole
#    life);
#  - the target's wall time and CPU time (user+sys), and their slowdown vs
#    the unprofiled runs.  (Sample handling in the kernel is charged to the
#    target, so its CPU time shows the in-kernel cost of sampling.)
# Medians over the rounds; writes bench/results/overhead.md (PL_BENCH_OUT
# overrides the directory) and prints it.
set -euo pipefail
build=${1:-build}
runs=${2:-3}
mib=${3:-8}
BENCH_CMD="bench/overhead.sh $build $runs $mib"
. "$(dirname "$0")/lib.sh"
bench_prepare "$build" "$mib"

# child_of PID: the first child of PID (a program started under /usr/bin/time).
child_of() {
	local c i
	for ((i = 0; i < 500; i++)); do
		c=$(pgrep -P "$1" | head -n 1 || true)
		[ -n "$c" ] && { echo "$c"; return; }
		sleep 0.01
	done
	bench_die "no child of $1 appeared"
}

# run_one VARIANT MODE HZ: prints
#   wall_s target_cpu_s prof_cpu_pct prof_hwm_kb prof_total_cpu_s prof_maxrss_kb samples
run_one() {
	local variant=$1 mode=$2 hz=$3 z cg
	z=$(bench_zstd "$mode")
	cg=$(bench_perf_cg "$mode")
	rm -f "$BTMP"/t.* "$BTMP"/o.plens "$BTMP"/perf.data "$BTMP"/mon
	/usr/bin/time -f "%e %U %S" -o "$BTMP/t.target" "$z" "${zargs[@]}" &
	local tw=$! zp pw="" prof="" mon=""
	BENCH_PIDS+=("$tw")
	zp=$(child_of "$tw")
	case $variant in
	perflens)
		/usr/bin/time -f "%U %S %M" -o "$BTMP/t.prof" "$AGENT" --output "$BTMP/o.plens" \
			--pid "$zp" --frequency "$hz" --callgraph "$mode" --no-offcpu --no-counters \
			2>"$BTMP/prof.log" &
		pw=$! ;;
	perf)
		/usr/bin/time -f "%U %S %M" -o "$BTMP/t.prof" perf record -q -F "$hz" \
			--call-graph "$cg" --user-callchains -p "$zp" -o "$BTMP/perf.data" \
			2>"$BTMP/prof.log" &
		pw=$! ;;
	esac
	if [ -n "$pw" ]; then
		BENCH_PIDS+=("$pw")
		prof=$(child_of "$pw")
		bench_monitor "$prof" "$zp" 1.0 "$BTMP/mon" &
		mon=$!
	fi
	wait "$tw" || bench_die "zstd failed"
	local wall tcpu
	read -r wall u s <"$BTMP/t.target"
	tcpu=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
	if [ -z "$pw" ]; then
		echo "$wall $tcpu 0 0 0 0 0"
		return
	fi
	wait "$pw" || { cat "$BTMP/prof.log" >&2; bench_die "$variant failed (log above)"; }
	wait "$mon" || true
	local pct hwm win pu ps pm samples
	read -r pct hwm win <"$BTMP/mon"
	read -r pu ps pm <"$BTMP/t.prof"
	if [ "$variant" = perflens ]; then
		samples=$("$PL_ROOT/$build/tools/pl-dump" -c "$BTMP/o.plens" | awk '$1 == "SAMPLE" {print $2}')
	else
		samples=$(perf script -i "$BTMP/perf.data" -F tid 2>/dev/null | wc -l)
	fi
	echo "$wall $tcpu $pct $hwm $(awk -v u="$pu" -v s="$ps" 'BEGIN {print u + s}') $pm ${samples:-0}"
}

bench_log "overhead: $runs rounds x 12 configurations (zstd on ${mib} MiB, ~10-20 s each)"
BENCH_ROWS=$BTMP/rows
: >"$BENCH_ROWS"
bench_rounds "$runs" run_one none perflens perf

col() { bench_col "$@"; }
pctdiff() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.1f%%", 100 * (a / b - 1)}'; }
goal_cpu() { [ "$1" = fp ] && echo 0.5 || echo 2; }
ok() { awk -v v="$1" -v g="$2" 'BEGIN {print (v <= g) ? "met" : "**missed**"}'; }

{
	bench_header "Agent overhead: PerfLens vs perf record"
	echo "Medians of $runs rounds; columns 4+ = fields of run_one (wall s, target CPU s, profiler CPU % steady, VmHWM kB, profiler CPU s total, maxrss kB, samples)."
	echo "Goals: agent CPU ≤0.5% of one core (fp), ≤2% (dwarf); agent RSS ≤4 MB (4096 kB)."
	echo
	echo "| Hz | mode | zstd wall s: none / PerfLens / perf | slowdown PerfLens / perf | zstd CPU s: none / PerfLens / perf | CPU slowdown PerfLens / perf | agent CPU % (steady; whole life) | perf CPU % (steady; whole life) | agent / perf CPU | agent RSS kB (recording; peak) | perf RSS kB (recording; peak) | samples PerfLens / perf | CPU goal | RSS goal |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for hz in 99 999; do
		for mode in fp dwarf; do
			wn=$(col $hz $mode none 4); wl=$(col $hz $mode perflens 4); wp=$(col $hz $mode perf 4)
			cn=$(col $hz $mode none 5); cl=$(col $hz $mode perflens 5); cp=$(col $hz $mode perf 5)
			al=$(col $hz $mode perflens 6); ap=$(col $hz $mode perf 6)
			hl=$(col $hz $mode perflens 7); hp=$(col $hz $mode perf 7)
			tl=$(col $hz $mode perflens 8); tp=$(col $hz $mode perf 8)
			ml=$(col $hz $mode perflens 9); mp=$(col $hz $mode perf 9)
			sl=$(col $hz $mode perflens 10); sp=$(col $hz $mode perf 10)
			# whole-life CPU % of one core: CPU seconds over the target's wall time
			lifel=$(awk -v c="$tl" -v w="$wl" 'BEGIN {printf "%.2f", 100 * c / w}')
			lifep=$(awk -v c="$tp" -v w="$wp" 'BEGIN {printf "%.2f", 100 * c / w}')
			ratio=$(awk -v a="$al" -v b="$ap" 'BEGIN {printf (b > 0 ? "%.2f×" : "n/a"), a / b}')
			echo "| $hz | $mode | $wn / $wl / $wp | $(pctdiff "$wl" "$wn") / $(pctdiff "$wp" "$wn") | $cn / $cl / $cp | $(pctdiff "$cl" "$cn") / $(pctdiff "$cp" "$cn") | $al; $lifel | $ap; $lifep | $ratio | $hl; $ml | $hp; $mp | $sl / $sp | $(ok "$al" "$(goal_cpu $mode)") | $(ok "$hl" 4096) |"
		done
	done
	echo
	echo "<details><summary>Every run (Hz mode variant wall_s target_cpu_s prof_cpu_% prof_hwm_kB prof_cpu_s maxrss_kB samples)</summary>"
	echo
	echo '```'
	cat "$BENCH_ROWS"
	echo '```'
	echo "</details>"
} >"$outdir/overhead.md"
cat "$outdir/overhead.md"
