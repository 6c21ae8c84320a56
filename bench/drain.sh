#!/usr/bin/env bash
# bench/drain.sh — does the agent keep up with its rings where perf does?
#
# The case of issue 27's losses: Debian's pbzip2 -p300 (the realworld
# build, test/realworld/build.sh) compressing an endless fifo, attached by
# --pid, cpu-clock at 1999 Hz, DWARF stacks of 8 KiB.  For each agent given
# (the one before a change and the one after, say), in turn, on one
# workload that runs throughout: `perf record -p` is attached first and
# stays on while the agent records SECS, so both see the same run; then
# the lost counts of both (the agent's LOST frames, perf's LOST_SAMPLES),
# the samples each kept, and the agent's CPU (its last HEALTH, and its
# whole life as time(1) saw it).
#
# usage: bench/drain.sh [--secs S] [--hz HZ] [--rounds N] NAME=AGENT...
#   e.g. bench/drain.sh before=/tmp/agent-main after=build/perflens-agent
# Prints a Markdown table (one row per agent and round) on stdout.
# Needs root or perf_event_paranoid <= 1, perf, the realworld build.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${PL_BUILD:-$root/build}
secs=2.5 hz=1999 rounds=1 fp=0
agents=()
while [ $# -gt 0 ]; do
	case "$1" in
	--secs) secs=$2; shift 2 ;;
	--hz) hz=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--fp) fp=1; shift ;; # frame pointers instead of DWARF stacks
	*=*) agents+=("$1"); shift ;;
	*) echo "usage: $0 [--secs S] [--hz HZ] [--rounds N] [--fp] NAME=AGENT..." >&2; exit 2 ;;
	esac
done
[ ${#agents[@]} -gt 0 ] || agents=("agent=$build/perflens-agent")
die() { echo "drain.sh: $*" >&2; exit 1; }
command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
dump=$build/tools/pl-dump
perflens=$build/perflens
[ -x "$dump" ] && [ -x "$perflens" ] || die "$build has no perflens or tools/pl-dump: run make first"
W=$("$root/test/realworld/build.sh" 2>/dev/null | tail -n 1)
v=nofp; [ "$fp" = 1 ] && v=fp
[ -x "$W/$v/pbzip2" ] || die "no realworld build (test/realworld/build.sh printed '$W')"

TMP=$(mktemp -d /tmp/pl-drain-XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ -n "${PL_KEEP_TMP:-}" ]; then echo "# kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

# the workload: 300 compressor threads fed from a fifo that repeats the input
mkfifo "$TMP/fifo"
(while :; do cat "$W/input" || exit; done) >"$TMP/fifo" 2>/dev/null &
pids+=($!)
"$W/$v/pbzip2" -p300 -b1 -c <"$TMP/fifo" >/dev/null 2>"$TMP/target.log" &
tpid=$!
pids+=("$tpid")
for _ in $(seq 1 100); do
	[ "$(ls "/proc/$tpid/task" 2>/dev/null | wc -l)" -ge 300 ] && break
	sleep 0.05
done
[ -d "/proc/$tpid" ] || die "pbzip2 did not start: $(head -c 300 "$TMP/target.log")"

cg=(--callgraph dwarf) pcg=(--call-graph dwarf,8192)
[ "$fp" = 1 ] && cg=(--callgraph fp) pcg=(--call-graph fp)
echo "| agent | round | agent samples | agent lost | agent lost % | agent: left out while attaching | agent CPU s (last HEALTH / whole life) | perf samples | perf lost | perf lost % |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for ((r = 1; r <= rounds; r++)); do
	for spec in "${agents[@]}"; do
		name=${spec%%=*}
		read -r -a agent <<<"${spec#*=}" # a command: "nice -n -5 AGENT" works too
		d=$TMP/$name-$r
		mkdir -p "$d"
		# perf first, until its workload (a sleep that outlasts the agent)
		# runs: attaching to 300 threads takes perf seconds
		perf record -N -q -o "$d/perf.data" -k CLOCK_MONOTONIC -F "$hz" -e cpu-clock:u \
			"${pcg[@]}" -p "$tpid" -- sleep 120 >/dev/null 2>"$d/perf.log" &
		ppid=$!
		psleep=
		for _ in $(seq 1 600); do
			for c in $(cat /proc/"$ppid"/task/*/children 2>/dev/null); do
				[ "$(cat "/proc/$c/comm" 2>/dev/null)" = sleep ] && psleep=$c
			done
			[ -n "$psleep" ] && break
			kill -0 "$ppid" 2>/dev/null || break
			sleep 0.05
		done
		[ -n "$psleep" ] || die "perf record did not start: $(tail -n 2 "$d/perf.log")"
		/usr/bin/time -f "%U %S" -o "$d/agent.time" "${agent[@]}" --output "$d/ours.plens" --event cpu-clock --frequency "$hz" "${cg[@]}" \
			--pid "$tpid" --duration "$secs" >/dev/null 2>"$d/agent.log" ||
			die "$name (${agent[*]}) failed: $(tail -n 2 "$d/agent.log")"
		kill "$psleep"
		wait "$ppid"
		# the agent's: samples, ring losses (LOST frames), CPU (last HEALTH)
		# and the samples left out while it attached (its LOG says so)
		read -r as al acpu askip < <("$dump" "$d/ours.plens" 2>/dev/null | awk '
			/^SAMPLE / { s++ }
			/^LOST / { for (i = 2; i <= NF; i++) if ($i ~ /^count=/) { sub(/count=/, "", $i); l += $i } }
			/^HEALTH / { for (i = 2; i <= NF; i++) if ($i ~ /^agent_cpu=/) { sub(/agent_cpu=/, "", $i); c = $i + 0 } }
			/^LOG .* samples taken meanwhile/ { if (match($0, /the [0-9]+ samples/)) k = substr($0, RSTART + 4, RLENGTH - 12) + 0 }
			END { printf "%d %d %.2f %d\n", s, l, c / 1e9, k }')
		acpu_all=$(awk '{ printf "%.2f", $1 + $2 }' "$d/agent.time" 2>/dev/null)
		# perf's, over its whole recording (it started before the agent and
		# ended after it: the same run, a longer window; the rates compare)
		read -r ps pl < <(perf report -i "$d/perf.data" --stats 2>/dev/null | awk '
			$1 == "SAMPLE" && $2 == "events:" { s = $3 }
			$1 == "LOST_SAMPLES" && $2 == "events:" { l = $3 }
			END { printf "%d %d\n", s, l }')
		awk -v n="$name" -v r="$r" -v as="$as" -v al="$al" -v c="$acpu" -v ca="${acpu_all:-?}" -v k="$askip" -v ps="$ps" -v pl="$pl" 'BEGIN {
			printf "| %s | %d | %d | %d | %.1f | %d | %.2f / %s | %d | %d | %.1f |\n", n, r, as, al,
				as + al ? 100 * al / (as + al) : 0, k, c, ca, ps, pl, ps + pl ? 100 * pl / (ps + pl) : 0 }'
	done
done
