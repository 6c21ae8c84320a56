#!/usr/bin/env bash
# bench/ingest.sh — the viewer's ingest throughput (decode, unwind,
# symbolize, aggregate) against hotspot's parser (`hotspot-perfparser`,
# Debian's hotspot) and `perf report --stdio` on the same perf.data, side
# by side.
#
#   bench/ingest.sh [BUILD_DIR] [RUNS] [BIG_MB]
#
# A real multi-threaded program (zstd -T2 from bench/workloads/zstd.sh;
# the burn workload when that cannot be built) is recorded by `perf record`
# twice: -g with the frame-pointer build, --call-graph dwarf with the
# distribution build.  On each file `perflens report`, `hotspot-perfparser
# --input FILE --output /dev/null` (the parser behind hotspot's window:
# decode, unwind, symbolize, its own stream out) and `perf report --stdio`
# run alternately RUNS times (default 5); medians of wall time, CPU time
# and peak RSS (the wait4 rusage of each run, µs steps) give samples per
# second and the ratios.  PL_INGEST_BASE=DIR also runs DIR/perflens (another
# build, main's say) in the same rounds: its medians go in the last
# columns, beside this build's.  PL_INGEST_KEEP=DIR keeps the recorded
# perf.data files there (for comparing reports) instead of deleting them.
# hotspot-perfparser is Debian's (apt install hotspot), else
# $HOTSPOT_PERFPARSER, else the binary of `apt-get download hotspot`
# unpacked into the bench cache (it needs libqt5core5a and libqt5network5,
# which bench/deps.sh installs: the script says so when they are missing);
# without it those columns read n/a.
# Then 60 s of fp samples (throughput rather than process start) and a
# dwarf perf.data of about BIG_MB MiB (default 500), measured the same way:
# time to the first report and peak memory.  Writes the Markdown table to
# bench/results/ingest.md and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
runs=${2:-5}
big_mb=${3:-500}
perflens=$build/perflens
base=${PL_INGEST_BASE:+$(realpath "$PL_INGEST_BASE")/perflens}
[ -z "$base" ] || [ -x "$base" ] || { echo "bench/ingest.sh: $base not built" >&2; exit 2; }
out_md=$here/results/ingest.md
tmp=$(mktemp -d /tmp/pl-ingest-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# perflens keeps inflated debug files in $XDG_CACHE_HOME/perflens/debug
# (as a user's second open of a file does): a private cache, emptied
# before each file's first (cold) run; the workload's build stays in the
# user's cache
export PERFLENS_BENCH_CACHE=${PERFLENS_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perflens/bench}
export XDG_CACHE_HOME=$tmp/xdg
command -v perf >/dev/null || { echo "bench/ingest.sh: perf is not installed" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench/ingest.sh: python3 is missing (bench/deps.sh)" >&2; exit 2; }
[ -x "$perflens" ] || { echo "bench/ingest.sh: $perflens not built (make)" >&2; exit 2; }

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# hotspot's parser: installed, given, or unpacked from Debian's package
find_perfparser() {
	local p=${HOTSPOT_PERFPARSER:-} d
	[ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return; }
	for p in /usr/lib/*/libexec/hotspot-perfparser /usr/libexec/hotspot-perfparser; do
		[ -x "$p" ] && { echo "$p"; return; }
	done
	d=$PERFLENS_BENCH_CACHE/hotspot
	p=$(ls "$d"/x/usr/lib/*/libexec/hotspot-perfparser 2>/dev/null | head -1)
	if [ -z "$p" ]; then
		mkdir -p "$d"
		(cd "$d" && apt-get download hotspot >/dev/null 2>&1 && dpkg-deb -x hotspot_*.deb x) || return 0
		p=$(ls "$d"/x/usr/lib/*/libexec/hotspot-perfparser 2>/dev/null | head -1)
	fi
	[ -n "$p" ] || return 0
	if ldd "$p" | grep -q "not found"; then
		echo "bench/ingest.sh: $p needs $(ldd "$p" | awk '/not found/ {print $1}' | tr '\n' ' ')(bench/deps.sh installs them: libqt5core5a libqt5network5); its columns read n/a" >&2
		return 0
	fi
	echo "$p"
}
perfparser=$(find_perfparser)
pp_version=n/a
[ -n "$perfparser" ] && pp_version=$(dpkg-query -W -f '${Version}' hotspot 2>/dev/null ||
	basename "$(ls "$PERFLENS_BENCH_CACHE"/hotspot/hotspot_*.deb 2>/dev/null | head -1)" .deb)

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

# "seconds cpu_seconds peak_kb" of one command: wall time around fork and
# wait, CPU (user + system of all its threads) and peak RSS from the rusage
# wait4 returns, in µs steps (/usr/bin/time prints CPU in 10 ms steps, too
# coarse for runs of 30 ms).
timed() {
	python3 -c '
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.dup2(os.open("/dev/null", os.O_WRONLY), 1)
        os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
t1 = time.perf_counter()
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    sys.exit(1)
print("%.4f %.4f %d" % (t1 - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
' "$tmp/err" "$@" || { echo "bench/ingest.sh: failed: $* ($(tail -1 "$tmp/err"))" >&2; return 1; }
}

# (awk reads everything: an early exit would SIGPIPE perflens under pipefail)
samples_of() { "$perflens" report "$1" --top 1 2>/dev/null | awk 'NR == 1 {n = $2} END {print n}'; }

# One row: the three tools on file f, alternating, RUNS times each; medians of
# wall time, CPU time (user + system, all threads) and peak RSS.
measure() { # label file
	local label=$1 f=$2 n size t c m
	n=$(samples_of "$f")
	size=$(du -m "$f" | cut -f1)
	: >"$tmp/pl.t"; : >"$tmp/pl.c"; : >"$tmp/pl.m"; : >"$tmp/pf.t"; : >"$tmp/pf.c"; : >"$tmp/pf.m"
	: >"$tmp/pp.t"; : >"$tmp/pp.c"; : >"$tmp/pp.m"; : >"$tmp/bl.t"; : >"$tmp/bl.c"
	if [ "${n:-0}" -lt 1000 ]; then
		echo "bench/ingest.sh: $f holds only ${n:-0} samples: the workload did not run" >&2
		exit 1
	fi
	# the first open of a file: no inflated debug files cached yet
	rm -rf "$XDG_CACHE_HOME/perflens/debug"
	local cold
	read -r cold c m < <(timed "$perflens" report "$f" --top 20)
	for ((i = 0; i < runs; i++)); do
		read -r t c m < <(timed "$perflens" report "$f" --top 20)
		echo "$t" >>"$tmp/pl.t"; echo "$c" >>"$tmp/pl.c"; echo "$m" >>"$tmp/pl.m"
		if [ -n "$base" ]; then
			read -r t c m < <(timed "$base" report "$f" --top 20)
			echo "$t" >>"$tmp/bl.t"; echo "$c" >>"$tmp/bl.c"
		fi
		if [ -n "$perfparser" ]; then
			read -r t c m < <(timed "$perfparser" --input "$f" --output /dev/null)
			echo "$t" >>"$tmp/pp.t"; echo "$c" >>"$tmp/pp.c"; echo "$m" >>"$tmp/pp.m"
		fi
		read -r t c m < <(timed perf report -i "$f" --stdio)
		echo "$t" >>"$tmp/pf.t"; echo "$c" >>"$tmp/pf.c"; echo "$m" >>"$tmp/pf.m"
	done
	local plt plc plm pft pfc pfm
	plt=$(median <"$tmp/pl.t"); plc=$(median <"$tmp/pl.c"); plm=$(median <"$tmp/pl.m")
	pft=$(median <"$tmp/pf.t"); pfc=$(median <"$tmp/pf.c"); pfm=$(median <"$tmp/pf.m")
	local ppt ppc ppm blt blc
	ppt=$(median <"$tmp/pp.t"); ppc=$(median <"$tmp/pp.c"); ppm=$(median <"$tmp/pp.m")
	blt=$(median <"$tmp/bl.t"); blc=$(median <"$tmp/bl.c")
	local pp_cols
	pp_cols=$(awk -v a="$plt" -v ac="$plc" -v t="$ppt" -v c="$ppc" -v m="$ppm" 'BEGIN {
		if (t == "n/a") { print "n/a | n/a | n/a | n/a | n/a"; exit }
		printf "%.3f | %.3f | %.0f | %.2fx | %.2fx", t, c, m / 1024, (a > 0 ? t / a : 0), (ac > 0 ? c / ac : 0) }')
	awk -v n="$n" -v a="$plt" -v b="$pft" -v ac="$plc" -v bc="$pfc" -v am="$plm" -v bm="$pfm" \
		-v label="$label" -v size="$size" -v cold="$cold" -v pp="$pp_cols" -v blt="$blt" -v blc="$blc" 'BEGIN {
		ra = a > 0 ? n / a : 0; rb = b > 0 ? n / b : 0
		printf "| %s | %d | %d | %.3f | %.3f | %.0f | %.0f | %s | %.3f | %.3f | %.0f | %.2fx | %.0f | %.3f (%.2fx) |",
			label, size, n, a, ac, ra, am / 1024, pp, b, bc, rb, (rb > 0 ? ra / rb : 0), bm / 1024,
			cold, (cold > 0 ? b / cold : 0)
		if (blt != "n/a")
			printf " %.3f / %.3f |", blt, blc }'
}

rows=()
for mode in fp dwarf; do
	record "$mode" 8 "$tmp/$mode.data"
	row=$(measure "$mode" "$tmp/$mode.data")
	rows+=("$row")
	echo "$mode: ${row}" >&2
done

# throughput rather than process start: 60 s of fp samples
record fp 60 "$tmp/fp60.data"
row=$(measure "fp, 60 s" "$tmp/fp60.data")
rows+=("$row")
echo "fp 60 s: ${row}" >&2
keep() { if [ -n "${PL_INGEST_KEEP:-}" ]; then mkdir -p "$PL_INGEST_KEEP" && mv "$@" "$PL_INGEST_KEEP"/; else rm -f "$@"; fi; }
keep "$tmp/fp60.data" "$tmp/fp.data"

# the big dwarf file: record until it is about big_mb MiB
dwarf_mb=$(du -m "$tmp/dwarf.data" | cut -f1)
secs=$(awk -v want="$big_mb" -v have="$dwarf_mb" 'BEGIN { s = have > 0 ? 8 * want / have : 60; if (s > 600) s = 600; printf "%d", s + 1 }')
keep "$tmp/dwarf.data"
record dwarf "$secs" "$tmp/big.data"
big_size=$(du -m "$tmp/big.data" | cut -f1)
bn=$(samples_of "$tmp/big.data")
row=$(measure "dwarf, $secs s" "$tmp/big.data")
rows+=("$row")
echo "dwarf big: ${row}" >&2
read -r bt bc bm < <(awk -F'|' -v r="$row" 'BEGIN { split(r, f, "|"); print f[5] + 0, f[6] + 0, f[8] + 0 }')
read -r pbt pbc pbm < <(awk -F'|' -v r="$row" 'BEGIN { split(r, f, "|"); print f[14] + 0, f[15] + 0, f[18] + 0 }')
read -r hbt hbc hbm < <(awk -F'|' -v r="$row" 'BEGIN { split(r, f, "|"); print f[9] + 0, f[10] + 0, f[11] + 0 }')
read -r lbt lbc < <(awk -F'|' -v r="$row" 'BEGIN { split(r, f, "|"); split(f[20], b, "/"); print b[1] + 0, b[2] + 0 }')
keep "$tmp/big.data"

{
	echo "<!-- written by bench/ingest.sh on $(date -u +%Y-%m-%d) ($(nproc) CPUs, $(uname -r)); runs=$runs -->"
	echo "Workload: $wl_name, recorded by \`perf record -e cpu-clock -F 999\` (-g on a"
	echo "frame-pointer build; --call-graph dwarf, 8 KiB stacks, on the distribution build): 8 s"
	echo "each, then 60 s of fp (throughput rather than process start) and a dwarf file of"
	echo "about $big_mb MiB. Median of $runs alternating runs each; time is wall clock of the whole"
	echo "command (\`perflens report FILE --top 20\` vs \`perf report -i FILE --stdio\`), CPU is"
	echo "user + system time of all its threads (wait4's rusage, µs steps), memory is peak RSS. perflens uses a second core"
	echo "(DWARF unwinding ahead of the model, decompressing debug sections): samples/s is by"
	echo "wall time, the CPU column shows what that costs. The medians are of warm runs: the"
	echo "debug files that Debian ships compressed (libc6-dbg) are inflated once into"
	echo "\$XDG_CACHE_HOME/perflens/debug and reused; the last column is the first, cold run of"
	echo "each file (an empty cache), with its ratio to perf report's median."
	echo
	echo "hotspot-perfparser ($pp_version, Debian's hotspot package) runs as hotspot runs it on a file:"
	echo "\`hotspot-perfparser --input FILE --output /dev/null\`; its ratios are its time over perflens's"
	echo "(wall, and CPU), the goal of issue 27 being ≥ 5× on DWARF files and ≥ 10× on frame-pointer files."
	[ -z "$base" ] || echo "The last column is the baseline build $PL_INGEST_BASE, run in the same rounds (medians)."
	echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	if [ -n "$base" ]; then
		echo "| call graph | MiB | samples | perflens s | perflens CPU s | perflens samples/s | perflens peak MiB | perfparser s | perfparser CPU s | perfparser peak MiB | perfparser / perflens wall | perfparser / perflens CPU | perf report s | perf CPU s | perf report samples/s | ratio | perf peak MiB | perflens cold s (ratio) | baseline perflens s / CPU s |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	else
		echo "| call graph | MiB | samples | perflens s | perflens CPU s | perflens samples/s | perflens peak MiB | perfparser s | perfparser CPU s | perfparser peak MiB | perfparser / perflens wall | perfparser / perflens CPU | perf report s | perf CPU s | perf report samples/s | ratio | perf peak MiB | perflens cold s (ratio) |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	fi
	for r in "${rows[@]}"; do echo "$r"; done
	echo
	echo "Large dwarf perf.data ($big_size MiB, $bn samples, recorded for $secs s; medians of the row above):"
	echo
	echo "| tool | time to first report (s) | CPU (s) | peak RSS (MiB) |"
	echo "|---|---:|---:|---:|"
	echo "| perflens report | $bt | $bc | $bm |"
	[ -z "$base" ] || echo "| perflens report, baseline build | $lbt | $lbc | n/a |"
	echo "| hotspot-perfparser | $hbt | $hbc | $hbm |"
	echo "| perf report --stdio | $pbt | $pbc | $pbm |"
} >"$out_md"
cat "$out_md"
