#!/usr/bin/env bash
# bench/scale.sh — loading a 10 M-sample session: `perflens report` of
# main's build against this tree's, side by side on the same capture.
#
#   bench/scale.sh [BUILD_DIR] [RUNS]          (defaults: build 3)
#
# The session comes from a real program: the zstd workload (-T2 -19, the
# frame-pointer build of bench/workloads/zstd.sh, in a loop) recorded by
# this build's agent at --frequency 100000 --callgraph fp (the kernel's
# maximum rate here) for PL_SCALE_SECS seconds (default 80: ~10 M samples
# on two free cores; a loaded machine gives fewer, so the seconds are
# a knob).  PL_SCALE_CAPTURE=FILE measures an existing capture instead.
# Captures live under $BUILD/bench/scale/, never in git.
#
# The old binary is PL_OLD_PERFLENS, else main's perflens built once from
# `git rev-parse main` in a temporary worktree into $BUILD/bench/main-<commit>/.
# Each run is `perflens report CAPTURE --top 20` under /usr/bin/time, old
# and new alternating RUNS times; medians of wall time, CPU (user +
# system, all threads) and peak RSS.  Both must print the same report,
# byte for byte (the last column says so).  Writes bench/results/scale.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(realpath "${1:-build}")
runs=${2:-3}
secs=${PL_SCALE_SECS:-80}
new=$build/perflens
agent=$build/perflens-agent
out_md=$here/results/scale.md
[ -x "$new" ] && [ -x "$agent" ] || { echo "bench/scale.sh: $build not built (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/scale.sh: /usr/bin/time is missing (apt install time)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/pl-scale-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# ─── main's binary ─────────────────────────────────────────────────────
old=${PL_OLD_PERFLENS:-}
old_label="main (${PL_OLD_LABEL:-$old})"
if [ -z "$old" ]; then
	commit=$(git -C "$root" rev-parse --short main)
	old=$build/bench/main-$commit/perflens
	old_label="main ($commit)"
	if [ ! -x "$old" ]; then
		wt=$tmp/main-wt
		echo "bench/scale.sh: building main ($commit) in a temporary worktree" >&2
		git -C "$root" worktree add -q --detach "$wt" "$commit"
		nice make -s -C "$wt" -j2 build/perflens >"$tmp/main-build.log" 2>&1 ||
			{ tail -5 "$tmp/main-build.log" >&2; git -C "$root" worktree remove --force "$wt"; exit 1; }
		mkdir -p "$(dirname "$old")"
		cp "$wt/build/perflens" "$old"
		git -C "$root" worktree remove --force "$wt"
	fi
fi
[ -x "$old" ] || { echo "bench/scale.sh: no old perflens at $old" >&2; exit 2; }

# ─── the session ───────────────────────────────────────────────────────
cap=${PL_SCALE_CAPTURE:-}
if [ -z "$cap" ]; then
	dir=$(PL_TC_QUIET=1 "$here/workloads/zstd.sh" | tail -1)
	[ -x "$dir/fp/zstd" ] || { echo "bench/scale.sh: the zstd workload did not build" >&2; exit 1; }
	mkdir -p "$build/bench/scale"
	cap=$build/bench/scale/zstd-100khz-${secs}s.plens
	head -c $((24 << 20)) "$dir/input" >"$tmp/input"
	rm -f "$cap"
	echo "bench/scale.sh: recording $secs s of zstd at 100 kHz into $cap" >&2
	# timeout signals the loop's whole process group: no zstd outlives it
	"$agent" --output "$cap" --frequency 100000 --callgraph fp --duration "$secs" -- \
		timeout -s INT $((secs + 5)) bash -c \
		"while :; do '$dir/fp/zstd' -q -T2 -19 -B2MiB -f '$tmp/input' -o /dev/null || exit 0; done" \
		>"$tmp/agent.log" 2>&1 || { tail -3 "$tmp/agent.log" >&2; exit 1; }
fi
size_mb=$(du -m "$cap" | cut -f1)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# ─── old and new, alternating ──────────────────────────────────────────
run() { # name binary
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$2" report "$cap" --top 20 >"$tmp/$1.out" 2>"$tmp/$1.err" ||
		{ echo "bench/scale.sh: $2 report failed: $(tail -1 "$tmp/$1.err")" >&2; exit 1; }
	awk '{ printf "%s %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$tmp/time" >>"$tmp/$1.rows"
	cat "$tmp/time" | sed "s/^/$1 /" >&2
}
for ((i = 0; i < runs; i++)); do
	if ((i % 2 == 0)); then run old "$old"; run new "$new"; else run new "$new"; run old "$old"; fi
done
# the busiest thread's CPU: what wall time comes to on two free cores,
# whatever the load of a shared machine (one run each under perf record at
# 1 kHz: a thread's samples / 1000 = its CPU seconds)
busiest() { # name binary
	if ! command -v perf >/dev/null; then echo "-"; return; fi
	perf record -q -F 1000 -e cpu-clock -o "$tmp/$1.perf" -- "$2" report "$cap" --top 20 >/dev/null 2>"$tmp/$1.perf.err" ||
		{ echo "-"; return; }
	perf report -i "$tmp/$1.perf" --stdio --no-children -g none --sort pid -F sample,pid 2>/dev/null |
		awk '!/^#/ && NF >= 2 && $1 ~ /^[0-9]+$/ { if ($1 > m) m = $1 } END { printf "%.2f\n", m / 1000 }'
}
ob=$(busiest old "$old")
nb=$(busiest new "$new")
same=no
cmp -s "$tmp/old.out" "$tmp/new.out" && same=yes
samples=$(sed -n 's/^[^:]*: \([0-9]*\) samples over.*/\1/p' "$tmp/new.out")
col() { awk -v c="$2" '{print $c}' "$tmp/$1.rows" | median; }
ow=$(col old 1); oc=$(col old 2); om=$(col old 3)
nw=$(col new 1); nc=$(col new 2); nm=$(col new 3)
{
	echo "# Loading a 10 M-sample session: perflens report, main vs this tree"
	echo
	echo "<!-- written by bench/scale.sh on $(date -u '+%Y-%m-%d %H:%M UTC') ($(nproc) CPUs, $(uname -r)); runs=$runs -->"
	echo "Produced by \`bench/scale.sh\` on $(date -u '+%F %T UTC'), load average at start $load0"
	echo "(the machine is shared: wall times move with its load, compare the CPU column and the ratios)."
	echo "Session: $samples samples, $size_mb MiB, the zstd workload (-T2 -19 -B2MiB, fp build, looped) recorded by"
	echo "\`perflens-agent --frequency 100000 --callgraph fp\`. Each run is \`perflens report FILE --top 20\` under"
	echo "/usr/bin/time, main's build and this one alternating, $runs runs each, medians; CPU is user + system of"
	echo "all threads, memory is peak RSS. Busiest thread: CPU seconds of the thread that did most, from one"
	echo "more run of each under \`perf record -F 1000\` (on two free cores the wall time cannot be shorter)."
	echo "Goal (issue 27): ≤ 3 s, ≤ 400 MiB."
	echo
	echo "| binary | samples | wall s | CPU s | busiest thread CPU s | peak RSS MiB | samples/s (wall) | same report | goal ≤ 3 s wall / ≤ 400 MiB |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|---|"
	awk -v n="$samples" -v w="$ow" -v c="$oc" -v b="$ob" -v m="$om" -v l="$old_label" 'BEGIN { printf "| %s | %d | %.2f | %.2f | %s | %d | %.0f | — | %s |\n", l, n, w, c, b, m, (w > 0 ? n / w : 0), (w <= 3 ? "met" : "not met") " / " (m <= 400 ? "met" : "not met") }'
	awk -v n="$samples" -v w="$nw" -v c="$nc" -v b="$nb" -v m="$nm" -v s="$same" 'BEGIN { printf "| this tree | %d | %.2f | %.2f | %s | %d | %.0f | %s | %s |\n", n, w, c, b, m, (w > 0 ? n / w : 0), s, (w <= 3 ? "met" : "not met") " / " (m <= 400 ? "met" : "not met") }'
	awk -v ow="$ow" -v oc="$oc" -v om="$om" -v nw="$nw" -v nc="$nc" -v nm="$nm" -v ob="$ob" -v nb="$nb" 'BEGIN {
		printf "| ratio main / this | | %.2fx | %.2fx | %s | %.2fx | | | |\n", (nw > 0 ? ow / nw : 0), (nc > 0 ? oc / nc : 0), (nb + 0 > 0 ? sprintf("%.2fx", ob / nb) : "—"), (nm > 0 ? om / nm : 0) }'
} >"$out_md"
cat "$out_md"
