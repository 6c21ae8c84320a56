#!/usr/bin/env bash
# bench/flight.sh — the flight recorder over a long run, and a glitch after
# a long quiet period (issue 28's "must show"; make check runs the short
# versions in test/integration/flight.sh).
#
#   bench/flight.sh [BUILD_DIR] [FLIGHT_SECONDS] [OUTPUT_SECONDS]
#
# 1. RSS and CPU: burn (2 worker threads) recorded at 999 Hz, fp, with
#    --flight 60 --flight-size 4M for FLIGHT_SECONDS (default 600), SIGUSR1
#    every 60 readings (a loaded machine reads slower than once a second); the agent's VmRSS read from /proc every second (max, and
#    VmHWM at the end) and its CPU (utime+stime) per second of run.  Then
#    the same workload with --output for OUTPUT_SECONDS (default 120): the
#    CPU of a normal recording, for comparison.  The bound checked: VmRSS
#    stays within the ring + 8 MiB.
# 2. Glitch: test/workloads/glitch quiet for 30 s, then a 300 ms burst and
#    its marker, under --flight 60 --trigger marker:glitch --before 10
#    --after 2: one snapshot, burst_work its top phase function, neither
#    warmup_spin nor the "startup" marker in it.
# Writes bench/results/flight.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
fsecs=${2:-600}
osecs=${3:-120}
agent=$(realpath "$build/perflens-agent")
perflens=$(realpath "$build/perflens")
burn=$(realpath "$build/workloads/burn")
glitch=$(realpath "$build/workloads/glitch")
tmp=$(mktemp -d /tmp/pl-bench-flight-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
ring=$((4 << 20)) fixed=$((8 << 20))
outdir=${PL_BENCH_OUT:-bench/results}
mkdir -p "$outdir"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# (the agent's own name in stat has no spaces: fields 14 and 15 are its times)
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# run SECONDS ARGS...: the agent on burn for SECONDS; prints
# "cpu_percent max_rss_kb hwm_kb"
run() {
	local secs=$1 flight=$2
	shift 2
	"$agent" "$@" -F 999 --callgraph fp -- "$burn" "$secs" 2 >"$tmp/agent.log" 2>&1 &
	local ag=$! max=0 h=0 n=0
	sleep 2
	local t0 c0
	t0=$(date +%s.%N) c0=$(ticks $ag)
	local c1=$c0 t1=$t0
	while kill -0 $ag 2>/dev/null; do
		local r
		r=$(rss $ag)
		[ "${r:-0}" -gt "$max" ] && max=$r
		local c
		c=$(ticks $ag)
		# (a reading after the agent exited is none)
		[ "${c:-0}" -gt 0 ] && c1=$c t1=$(date +%s.%N) h=$(hwm $ag)
		n=$((n + 1))
		[ "$flight" = 1 ] && [ $((n % 60)) = 0 ] && kill -USR1 $ag 2>/dev/null
		sleep 1
	done
	wait $ag || true
	awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" -v m="$max" -v h="$h" \
		'BEGIN { printf "%.2f %d %d\n", 100 * (c1 - c0) / hz / (t1 - t0), m, h }'
}

read -r fcpu frss fhwm < <(run "$fsecs" 1 --flight 60 --flight-size 4M --snapshot-dir "$tmp/snaps" \
	--before 10 --after 2 --trigger-gap 0)
fsum=$(grep 'flight recorder:.*snapshot' "$tmp/agent.log" | tail -1 | sed 's/^perflens-agent: //')
nsnap=$(ls "$tmp/snaps" | wc -l)
read -r ocpu orss ohwm < <(run "$osecs" 0 --output "$tmp/out.plens")
bound=met
[ $((frss * 1024)) -le $((ring + fixed)) ] || bound=MISSED

# the glitch after 30 s of quiet
"$agent" --flight 60 --trigger marker:glitch --before 10 --after 2 --snapshot-dir "$tmp/g" \
	-F 999 --callgraph fp -- "$glitch" "$tmp/g.expect" 30000 300 0 100 100 >"$tmp/g.log" 2>&1
gfile=$(ls "$tmp"/g/flight-*.plens | head -1)
"$perflens" report --top 0 "$gfile" >"$tmp/g.report"
"$perflens" report --markers "$gfile" >"$tmp/g.markers"
top=$(awk '/^Top functions/ { t = 1; next } t && /^$/ { t = 0 }
	t && ($4 == "warmup_spin" || $4 == "burst_work" || $4 == "after_spin") { sub(/%/, "", $2); print $2, $4 }' \
	"$tmp/g.report" | sort -rn | head -1 | awk '{print $2}')
early=none
grep -q warmup_spin "$tmp/g.report" && early="warmup_spin"
grep -q startup "$tmp/g.markers" && early="$early, startup marker"
trig=$(grep -m1 'trigger:' "$tmp/g.report" | sed 's/^ *//')
span=$(head -1 "$tmp/g.report" | sed -E 's/.* over ([0-9.]+ s).*/\1/')

{
	echo "# Flight recorder"
	echo
	echo "Produced by \`bench/flight.sh $build $fsecs $osecs\` on $(date -u '+%F %T UTC'), $(nproc) CPUs."
	echo
	echo "burn, 2 worker threads, 999 Hz, fp:"
	echo
	echo "| run | seconds | agent CPU | max VmRSS | VmHWM |"
	echo "|---|---|---|---|---|"
	echo "| --flight 60 --flight-size 4M (SIGUSR1 every 60 readings) | $fsecs | $fcpu % | $frss KiB | $fhwm KiB |"
	echo "| --output (a normal recording) | $osecs | $ocpu % | $orss KiB | $ohwm KiB |"
	echo
	echo "Bound: VmRSS within the ring (4096 KiB) + 8 MiB: **$bound**.  $nsnap snapshots; $fsum."
	echo
	echo "Glitch after 30 s of quiet (--before 10 --after 2): top phase function **$top**;"
	echo "before the window in the snapshot: $early; the snapshot spans $span."
	echo "\`$trig\`"
} >"$outdir/flight.md"
cat "$outdir/flight.md"
