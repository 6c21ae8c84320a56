# shellcheck shell=bash
# bench/lib.sh — shared by the bench/ scripts; sourced, never run.
#
# Provides: the workload (zstd built from Debian source, see
# workloads/zstd.sh), the bench tools (pl-latency, pl-wirestat, built into
# $BUILD/bench/), medians, a CPU/RSS monitor for a running process, and the
# header every results file starts with (the command and the date), and
# the frame of a comparison: the output directory, the zstd input and
# arguments, the configurations run in rotated rounds, the medians of their
# rows.

PL_BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PL_ROOT=$(cd "$PL_BENCH_DIR/.." && pwd)

bench_die() { echo "bench: error: $*" >&2; exit 1; }
bench_log() { echo "bench: $*" >&2; }

# bench_setup BUILD: checks the build, builds the bench tools, finds the
# workload; sets AGENT, PL_LATENCY, PL_WIRESTAT, ZSTD_FP, ZSTD_NOFP, ZSTD_INPUT
# (48 MiB), ZSTD_DIR, BTMP (a private temp dir removed on exit).
bench_setup() {
	local build=$1
	AGENT=$(realpath "$build/perflens-agent" 2>/dev/null) || true
	[ -x "$AGENT" ] || bench_die "$build/perflens-agent missing: run make first"
	[ -f "$build/libplcommon.a" ] || bench_die "$build/libplcommon.a missing: run make first"
	command -v perf >/dev/null || bench_die "perf is not installed (apt-get install linux-perf)"
	command -v zstd >/dev/null || bench_die "zstd is not installed (apt-get install zstd)"
	mkdir -p "$build/bench"
	local t cflags=(-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wno-unused-parameter
		-Wmissing-prototypes -Werror -D_GNU_SOURCE -I"$PL_ROOT/common" -I"$PL_ROOT/test")
	for t in pl-latency pl-wirestat; do
		if [ ! -x "$build/bench/$t" ] || [ "$PL_BENCH_DIR/$t.c" -nt "$build/bench/$t" ] ||
			[ "$build/libplcommon.a" -nt "$build/bench/$t" ]; then
			gcc "${cflags[@]}" -o "$build/bench/$t" "$PL_BENCH_DIR/$t.c" \
				"$build/libplcommon.a" -lzstd -lm || bench_die "building $t failed"
		fi
	done
	PL_LATENCY=$(realpath "$build/bench/pl-latency")
	PL_WIRESTAT=$(realpath "$build/bench/pl-wirestat")
	ZSTD_DIR=$("$PL_BENCH_DIR/workloads/zstd.sh" | tail -n 1)
	[ -x "$ZSTD_DIR/fp/zstd" ] || bench_die "workload build failed (bench/workloads/zstd.sh)"
	ZSTD_FP=$ZSTD_DIR/fp/zstd
	ZSTD_NOFP=$ZSTD_DIR/nofp/zstd
	ZSTD_INPUT=$ZSTD_DIR/input
	BTMP=$(mktemp -d /tmp/pl-bench-XXXXXX)
	trap 'bench_cleanup' EXIT
}

# bench_prepare BUILD INPUT_MIB: bench_setup, then what every zstd
# benchmark needs next: outdir (PL_BENCH_OUT, else bench/results), input
# (an INPUT_MIB prefix of the workload input) and zargs (the zstd
# arguments on it, an array).  Set BENCH_CMD first: the results header
# names it.
bench_prepare() {
	bench_setup "$1"
	outdir=${PL_BENCH_OUT:-$PL_ROOT/bench/results}
	mkdir -p "$outdir"
	input=$(bench_input "$2")
	read -r -a zargs <<<"$(zstd_args "$input")"
}

# bench_zstd MODE: the zstd build a call-graph mode profiles (fp: frame
# pointers; dwarf: the distribution's flags, none).  bench_perf_cg MODE:
# perf record's --call-graph for it (user stacks copied 8 KiB, as the
# agent's default).
bench_zstd() { [ "$1" = dwarf ] && echo "$ZSTD_NOFP" || echo "$ZSTD_FP"; }
bench_perf_cg() { [ "$1" = dwarf ] && echo "dwarf,8192" || echo fp; }

# bench_start_target ZSTD [SETTLE_S]: starts ZSTD on zargs in the
# background, sets TARGET to its pid (ended on exit), waits SETTLE_S.
bench_start_target() {
	"$1" "${zargs[@]}" &
	TARGET=$!
	BENCH_PIDS+=("$TARGET")
	[ -z "${2:-}" ] || sleep "$2"
}
bench_stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# bench_rounds RUNS FN VARIANT...: for 99 and 999 Hz, fp and dwarf, RUNS
# rounds of one run of each variant, their order rotated each round (so
# that drifts of the shared machine's load hit all alike); each run is
# `FN VARIANT MODE HZ`, whose output line is appended to $BENCH_ROWS as
# "HZ MODE VARIANT LINE" and logged.
bench_rounds() {
	local runs=$1 fn=$2 hz mode r k line v
	shift 2
	local variants=("$@")
	for hz in 99 999; do
		for mode in fp dwarf; do
			for ((r = 0; r < runs; r++)); do
				for ((k = 0; k < ${#variants[@]}; k++)); do
					v=${variants[$(((r + k) % ${#variants[@]}))]}
					line=$("$fn" "$v" "$mode" "$hz")
					echo "$hz $mode $v $line" >>"$BENCH_ROWS"
					bench_log "$hz Hz $mode $v: $line"
				done
			done
		done
	done
}

# bench_col HZ MODE VARIANT FIELD [REDUCER]: field FIELD of those rows of
# $BENCH_ROWS (field 4 is the first of the run's line), reduced by REDUCER
# (default median).
bench_col() {
	awk -v hz="$1" -v m="$2" -v v="$3" -v c="$4" '$1 == hz && $2 == m && $3 == v {print $c}' \
		"$BENCH_ROWS" | "${5:-median}"
}

# Processes the scripts start are recorded here and ended on exit, by pid.
BENCH_PIDS=()
bench_cleanup() {
	local p
	for p in "${BENCH_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "${BTMP:-}" ] && rm -rf "$BTMP"
}

# bench_input MiB: a prefix of the workload input, made once per run.
bench_input() {
	local f=$BTMP/input-$1M
	[ -f "$f" ] || head -c $(($1 * 1048576)) "$ZSTD_INPUT" >"$f"
	echo "$f"
}

# The zstd invocation every benchmark profiles: level 19 (slow, CPU-bound),
# two worker threads (plus the main thread), 2 MiB jobs so both workers
# are busy on a few MiB of input.
zstd_args() { echo "-q -T2 -19 -B2MiB -c $1 -o /dev/null"; }

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
maxof() { sort -g | tail -n 1; }

now_s() { date +%s.%N; }

# CPU time of a whole process (every thread), in ns: the first field of
# /proc/PID/task/*/schedstat is the thread's time on a CPU (ns precision,
# unlike utime/stime in clock ticks).  Prints nothing once it is gone.
proc_cpu_ns() {
	[ -d "/proc/$1/task" ] || return 0
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {if (NR) printf "%d\n", s}'
}
proc_hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null; }

# bench_monitor PROFILER_PID TARGET_PID WARMUP_S OUT: every 0.2 s while the
# target lives, reads the profiler's CPU time and peak RSS; writes
# "cpu_percent_of_one_core hwm_kb window_s" for the steady state: from
# WARMUP_S after start (past the agent's start-up probe, past perf's setup)
# to the last reading while the target was still running.
bench_monitor() {
	local prof=$1 target=$2 warm=$3 out=$4 t0 c0 t c tl cl hwm=0 h start
	start=$(now_s)
	while [ -e "/proc/$target" ] && awk -v s="$start" -v n="$(now_s)" -v w="$warm" 'BEGIN {exit !(n - s < w)}'; do
		sleep 0.1
	done
	t0=$(now_s); c0=$(proc_cpu_ns "$prof")
	tl=$t0; cl=$c0
	while [ -e "/proc/$target" ] && [ "$(awk '{print $3}' /proc/"$target"/stat 2>/dev/null)" != Z ]; do
		t=$(now_s); c=$(proc_cpu_ns "$prof")
		[ -n "$c" ] || break
		h=$(proc_hwm_kb "$prof"); [ -n "$h" ] && hwm=$h
		tl=$t; cl=$c
		sleep 0.2
	done
	awk -v t0="$t0" -v c0="${c0:-0}" -v t1="$tl" -v c1="${cl:-0}" -v h="$hwm" \
		'BEGIN {w = t1 - t0; printf "%.3f %d %.1f\n", (w > 0 ? 100 * (c1 - c0) / 1e9 / w : 0), h, w}' >"$out"
}

# bench_header TITLE: the first lines of a results file.
bench_header() {
	echo "# $1"
	echo
	echo "Produced by \`${BENCH_CMD:-$0 $*}\` on $(date -u '+%F %T UTC'), $(nproc) CPUs, kernel $(uname -r),"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: compare ratios, not absolute times)."
	echo "Workload: \`zstd $(zstd_args INPUT)\` — zstd $(basename "$ZSTD_DIR") from the Debian source package, built by"
	echo "bench/workloads/zstd.sh (fp: distro CFLAGS + -fno-omit-frame-pointer; nofp: distro CFLAGS, for dwarf)."
	echo
}

# ─── the fleet benches: ClickHouse and a collector ───────────────────
# bench_fleet_setup BUILD NAME: the frame of the fleet benches: perflens,
# agent and burn (BUILD's), outdir (PL_BENCH_OUT, else bench/results), tmp
# (a private temp dir /tmp/pl-bench-NAME-*), pids (killed on exit), one
# ClickHouse server (Debian's, started on loopback by ci/clickhouse/server.sh
# in $tmp/ch, stopped on exit) with url, cred and sql QUERY (its answer on
# stdout), and a collector token in $tmp/token.
bench_fleet_setup() {
	perflens=$(realpath "$1/perflens")
	agent=$(realpath "$1/perflens-agent")
	burn=$(realpath "$1/workloads/burn")
	outdir=${PL_BENCH_OUT:-$PL_ROOT/bench/results}
	mkdir -p "$outdir"
	tmp=$(mktemp -d "/tmp/pl-bench-$2-XXXXXX")
	pids=()
	trap 'bench_fleet_cleanup' EXIT
	"$PL_ROOT/ci/clickhouse/server.sh" start "$tmp/ch" 1 >"$tmp/ch.log" 2>&1 ||
		bench_die "ClickHouse did not start: $(tail -c 300 "$tmp/ch.log")"
	# shellcheck disable=SC1091
	. "$tmp/ch/env"
	url=$PL_CH_URLS cred=$PL_CH_CREDENTIALS
	head -c 24 /dev/urandom | base64 >"$tmp/token" && chmod 600 "$tmp/token"
}

sql() { curl -sS --fail -u "$(cat "$cred")" --data-binary "$1" "$url/"; }

bench_fleet_cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	"$PL_ROOT/ci/clickhouse/server.sh" stop "$tmp/ch" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}

# bench_fleet_collector SPOOL LOG [KEEP [PERFLENS]]: `perflens collect` on a
# free loopback port into that server (KEEP: --keep-sessions; PERFLENS:
# another build's); sets col (its pid) and port.
bench_fleet_collector() {
	"${4:-$perflens}" collect --listen 127.0.0.1:0 --clickhouse "$url" --clickhouse-credentials "$cred" \
		--token-file "$tmp/token" --spool "$1" ${3:+--keep-sessions "$3"} 2>"$2" &
	col=$!
	pids+=($col)
	port=
	local _
	for _ in $(seq 200); do
		port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$2")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || bench_die "perflens collect did not listen: $(tail -c 300 "$2")"
}
