#!/usr/bin/env bash
# bench/agent.sh — the agent's cost on the board, measured side by side.
#
#   bench/agent.sh [BUILD_DIR] [SECONDS] [RUNS]
#
# For each mode (fp, dwarf) at 999 Hz it attaches the agent (--pid) to a
# busy multi-threaded workload and measures, from outside, the agent's own
# CPU time (utime+stime from /proc/PID/stat, after the start-up probe) and
# peak RSS (VmHWM), and the wire bytes per sample (capture size / samples).
# Then the same workload under `perf record -g` + `perf script | zstd -1`
# (the text pipeline PerfLens replaces) and perf.data, alternating, RUNS
# times each; medians are printed as a Markdown table for
# docs/PERFORMANCE.md.
set -euo pipefail
build=${1:-build}
secs=${2:-8}
runs=${3:-3}
agent=$(realpath "$build/perflens-agent")
burn=$(realpath "$build/workloads/burn")
dump=$(realpath "$build/tools/pl-dump")
tmp=$(mktemp -d /tmp/pl-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# one PerfLens run: prints "cpu_percent rss_kb bytes_per_sample samples"
run_perflens() {
	local mode=$1 out=$tmp/run.plens
	"$burn" $((secs + 3)) 3 >/dev/null &
	local target=$!
	sleep 0.3
	# like `perf record -g`: samples and side-band only, no switches or counters
	"$agent" --output "$out" --pid "$target" --frequency 999 --callgraph "$mode" \
		--no-offcpu --no-counters --duration "$secs" 2>/dev/null &
	local ag=$!
	sleep 1.5 # past the start-up probe
	local t0 c0 t1 c1 rss
	t0=$(date +%s.%N); c0=$(ticks $ag)
	sleep $((secs - 2))
	t1=$(date +%s.%N); c1=$(ticks $ag)
	rss=$(awk '/VmHWM/ {print $2}' /proc/$ag/status 2>/dev/null || echo 0)
	wait $ag || true
	kill $target 2>/dev/null || true
	wait $target 2>/dev/null || true
	local samples bytes
	samples=$("$dump" -c "$out" | awk '$1=="SAMPLE" {print $2}')
	bytes=$(stat -c %s "$out")
	awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" -v rss="$rss" \
		-v b="$bytes" -v s="$samples" \
		'BEGIN {printf "%.3f %d %.1f %d\n", 100*(c1-c0)/hz/(t1-t0), rss, b/s, s}'
}

# perf record with the same settings: prints "cpu_percent rss_kb text_zstd_bps perfdata_bps samples"
run_perf() {
	local mode=$1 data=$tmp/perf.data cg=fp
	[ "$mode" = dwarf ] && cg="dwarf,8192"
	"$burn" $((secs + 3)) 3 >/dev/null &
	local target=$!
	sleep 0.3
	perf record -q -F 999 --call-graph "$cg" -p "$target" -o "$data" -- sleep "$secs" 2>/dev/null &
	local pr=$!
	sleep 1.5
	local prec
	prec=$(pgrep -P $pr -x perf || echo $pr)
	[ -e /proc/$prec/stat ] || prec=$pr
	local t0 c0 t1 c1 rss
	t0=$(date +%s.%N); c0=$(ticks $prec)
	sleep $((secs - 2))
	t1=$(date +%s.%N); c1=$(ticks $prec)
	rss=$(awk '/VmHWM/ {print $2}' /proc/$prec/status 2>/dev/null || echo 0)
	wait $pr || true
	kill $target 2>/dev/null || true
	wait $target 2>/dev/null || true
	local samples text pdata
	samples=$(perf script -i "$data" -F tid 2>/dev/null | wc -l)
	text=$(perf script -i "$data" 2>/dev/null | zstd -1 -c | wc -c)
	pdata=$(stat -c %s "$data")
	awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" -v rss="$rss" \
		-v t="$text" -v p="$pdata" -v s="$samples" \
		'BEGIN {printf "%.3f %d %.1f %.1f %d\n", 100*(c1-c0)/hz/(t1-t0), rss, t/s, p/s, s}'
}

echo "# bench/agent.sh $build ${secs}s x $runs runs, $(nproc) CPUs, $(uname -r)"
echo
echo "| mode | PerfLens agent CPU % | agent peak RSS kB | PerfLens bytes/sample | perf record CPU % | perf RSS kB | perf script + zstd -1 bytes/sample | perf.data bytes/sample | PerfLens / text pipeline |"
echo "|---|---|---|---|---|---|---|---|---|"
for mode in fp dwarf; do
	: >"$tmp/pl" ; : >"$tmp/pf"
	for ((i = 0; i < runs; i++)); do
		run_perflens "$mode" >>"$tmp/pl"
		run_perf "$mode" >>"$tmp/pf"
	done
	plcpu=$(awk '{print $1}' "$tmp/pl" | median)
	plrss=$(awk '{print $2}' "$tmp/pl" | median)
	plbps=$(awk '{print $3}' "$tmp/pl" | median)
	pfcpu=$(awk '{print $1}' "$tmp/pf" | median)
	pfrss=$(awk '{print $2}' "$tmp/pf" | median)
	pftext=$(awk '{print $3}' "$tmp/pf" | median)
	pfdata=$(awk '{print $4}' "$tmp/pf" | median)
	ratio=$(awk -v a="$plbps" -v b="$pftext" 'BEGIN {printf "%.2f", a/b}')
	echo "| $mode | $plcpu | $plrss | $plbps | $pfcpu | $pfrss | $pftext | $pfdata | $ratio |"
done
echo
echo "Per-run rows (cpu% rss bytes/sample samples) — PerfLens then perf, last mode:"
paste "$tmp/pl" "$tmp/pf" | sed 's/^/    /'
