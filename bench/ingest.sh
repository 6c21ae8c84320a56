#!/usr/bin/env bash
# bench/ingest.sh — the viewer's ingest throughput (decode, unwind,
# symbolize, aggregate) against `perf report --stdio` on the same perf.data,
# side by side.
#
#   bench/ingest.sh [BUILD_DIR] [RUNS] [BIG_MB]
#
# A real multi-threaded program (zstd -T2 from bench/workloads/zstd.sh;
# the burn workload when that cannot be built) is recorded by `perf record`
# twice: -g with the frame-pointer build, --call-graph dwarf with the
# distribution build.  On each file `perflens report` and `perf report
# --stdio` run alternately RUNS times (default 5); medians of wall time
# and peak RSS (/usr/bin/time) give samples per second and the ratio.
# Then a dwarf perf.data of about BIG_MB MiB (default 500): time to the
# first report and peak memory.  Writes the Markdown table to
# bench/results/ingest.md and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
runs=${2:-5}
big_mb=${3:-500}
perflens=$build/perflens
out_md=$here/results/ingest.md
tmp=$(mktemp -d /tmp/pl-ingest-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "bench/ingest.sh: perf is not installed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/ingest.sh: /usr/bin/time is missing (apt install time)" >&2; exit 2; }
[ -x "$perflens" ] || { echo "bench/ingest.sh: $perflens not built (make)" >&2; exit 2; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# the workload: zstd, else burn
if dir=$(PL_TC_QUIET=1 "$here/workloads/zstd.sh" 2>"$tmp/zstd.log" | tail -1) && [ -x "$dir/fp/zstd" ]; then
	head -c $((24 << 20)) "$dir/input" >"$tmp/input"
	wl_name="zstd -T2 -19 (Debian libzstd $(basename "$dir" | cut -d- -f2))"
	# looped: one pass over the input takes ~25 s, the large file needs more
	wl_fp() { timeout -s INT "$1" bash -c "while :; do '$dir/fp/zstd' -q -T2 -19 -f '$tmp/input' -o /dev/null || exit 0; done" || true; }
	wl_nofp() { timeout -s INT "$1" bash -c "while :; do '$dir/nofp/zstd' -q -T2 -19 -f '$tmp/input' -o /dev/null || exit 0; done" || true; }
else
	echo "bench/ingest.sh: zstd workload unavailable ($(tail -1 "$tmp/zstd.log")); using burn" >&2
	wl_name="burn 2 threads"
	wl_fp() { "$build/workloads/burn" "$1" 2 >/dev/null; }
	wl_nofp() { "$build/workloads/burn-nofp" "$1" 2 >/dev/null; }
fi
export -f wl_fp wl_nofp 2>/dev/null || true

record() { # mode seconds file
	local mode=$1 secs=$2 file=$3
	if [ "$mode" = fp ]; then
		perf record -q -e cpu-clock -F 999 -g -o "$file" -- bash -c "$(declare -f wl_fp); dir='${dir:-}' tmp='$tmp' build='$build'; wl_fp $secs" >/dev/null 2>&1
	else
		perf record -q -e cpu-clock -F 999 --call-graph dwarf -o "$file" -- bash -c "$(declare -f wl_nofp); dir='${dir:-}' tmp='$tmp' build='$build'; wl_nofp $secs" >/dev/null 2>&1
	fi
}

# "seconds peak_kb" of one command
timed() {
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
		echo "bench/ingest.sh: failed: $* ($(tail -1 "$tmp/err"))" >&2; return 1; }
	tail -1 "$tmp/time"
}

# (awk reads everything: an early exit would SIGPIPE perflens under pipefail)
samples_of() { "$perflens" report "$1" --top 1 2>/dev/null | awk 'NR == 1 {n = $2} END {print n}'; }

rows=()
for mode in fp dwarf; do
	f=$tmp/$mode.data
	record "$mode" 8 "$f"
	n=$(samples_of "$f")
	size=$(du -m "$f" | cut -f1)
	: >"$tmp/pl.t"; : >"$tmp/pl.m"; : >"$tmp/pf.t"; : >"$tmp/pf.m"
	for ((i = 0; i < runs; i++)); do
		read -r t m < <(timed "$perflens" report "$f" --top 20)
		echo "$t" >>"$tmp/pl.t"; echo "$m" >>"$tmp/pl.m"
		read -r t m < <(timed perf report -i "$f" --stdio)
		echo "$t" >>"$tmp/pf.t"; echo "$m" >>"$tmp/pf.m"
	done
	plt=$(median <"$tmp/pl.t"); plm=$(median <"$tmp/pl.m")
	pft=$(median <"$tmp/pf.t"); pfm=$(median <"$tmp/pf.m")
	row=$(awk -v n="$n" -v a="$plt" -v b="$pft" -v am="$plm" -v bm="$pfm" -v mode="$mode" -v size="$size" 'BEGIN {
		ra = a > 0 ? n / a : 0; rb = b > 0 ? n / b : 0
		printf "| %s | %d | %d | %.2f | %.0f | %.0f | %.2f | %.0f | %.1fx | %.0f |",
			mode, size, n, a, ra, am / 1024, b, rb, (rb > 0 ? ra / rb : 0), bm / 1024 }')
	rows+=("$row")
	echo "$mode: ${row}" >&2
done

# the big dwarf file: record until it is about big_mb MiB
dwarf_mb=$(du -m "$tmp/dwarf.data" | cut -f1)
secs=$(awk -v want="$big_mb" -v have="$dwarf_mb" 'BEGIN { s = have > 0 ? 8 * want / have : 60; if (s > 600) s = 600; printf "%d", s + 1 }')
rm -f "$tmp/fp.data" "$tmp/dwarf.data"
record dwarf "$secs" "$tmp/big.data"
big_size=$(du -m "$tmp/big.data" | cut -f1)
read -r bt bm < <(timed "$perflens" report "$tmp/big.data" --top 20)
bn=$(samples_of "$tmp/big.data")
if read -r pbt pbm < <(timed timeout 900 perf report -i "$tmp/big.data" --stdio); then :; else pbt="(over 900)"; pbm=0; fi

{
	echo "<!-- written by bench/ingest.sh on $(date -u +%Y-%m-%d) ($(nproc) CPUs, $(uname -r)); runs=$runs -->"
	echo "Workload: $wl_name, recorded by \`perf record -e cpu-clock -F 999\` for 8 s (-g on a"
	echo "frame-pointer build; --call-graph dwarf, 8 KiB stacks, on the distribution build)."
	echo "Median of $runs alternating runs each; time is wall clock of the whole command"
	echo "(\`perflens report FILE\` vs \`perf report -i FILE --stdio\`), memory is peak RSS."
	echo
	echo "| call graph | MiB | samples | perflens s | perflens samples/s | perflens peak MiB | perf report s | perf report samples/s | ratio | perf peak MiB |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for r in "${rows[@]}"; do echo "$r"; done
	echo
	echo "Large dwarf perf.data ($big_size MiB, $bn samples, recorded for $secs s):"
	echo
	echo "| tool | time to first report (s) | peak RSS (MiB) |"
	echo "|---|---:|---:|"
	echo "| perflens report | $bt | $((bm / 1024)) |"
	echo "| perf report --stdio | $pbt | $((pbm / 1024)) |"
} >"$out_md"
cat "$out_md"
