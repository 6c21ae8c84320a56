#!/usr/bin/env bash
# bench/fleet-ingest.sh — how fast `perflens collect` stores samples into
# ClickHouse (Debian's 18.16, started here on loopback as a user process by
# ci/clickhouse/server.sh), with real agents beside it on the same machine.
#
#   bench/fleet-ingest.sh [BUILD_DIR] [AGENTS] [SECONDS] [BASELINE_BUILD_DIR]
#
# 1. Live: AGENTS agents (default 8) profile the burn workload (2 threads,
#    -F 4999, fp stacks, 20 s sessions) for SECONDS (default 40) into one
#    collector (--keep-sessions): the samples stored per second of run are
#    what the agents give, not what the collector could take.
# 2. Ingest, once with BASELINE_BUILD_DIR's perflens when it is given (an
#    earlier version, its own schema), then with BUILD_DIR's, on the same
#    server one after the other: the kept sessions are put in a new
#    collector's work directory (what a collector finds after a crash) with
#    the fleet's tables dropped (the symbol cache stays: a running site's
#    steady state), and that collector started with AGENTS agents reporting
#    to it beside (the programs they profile under SCHED_IDLE, the agents
#    not): the time from its start until it said every one of those
#    sessions stored (loaded, symbolized, cut into blocks, inserted: its
#    "stored" lines) gives the samples per second its whole ingest path
#    takes; the CPU the collector and ClickHouse spent over it, and the
#    bytes the tables take on disk once merged (OPTIMIZE … FINAL), say what
#    it costs.  Each figure is of one run.
#    PL_BENCH_PERF=1: perf records ClickHouse and the collector during each
#    ingest (cpu-clock, 999 Hz); the shares by binary and the top symbols
#    are written beside the results (fleet-ingest-perf-*.txt).
# Writes bench/results/fleet-ingest.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
build=${1:-build}
nagents=${2:-8}
secs=${3:-40}
baseline=${4:-}
bench_fleet_setup "$build" fleet
[ -z "$baseline" ] || [ -x "$baseline/perflens" ] || bench_die "$baseline/perflens is missing"

agents=()
start_agents() { # [idle]: the programs profiled under SCHED_IDLE (the agents' own is theirs)
	agents=()
	local run=()
	[ -z "${1:-}" ] || run=("$(command -v chrt)" --idle 0)
	for ((i = 0; i < nagents; i++)); do
		"$agent" --server "127.0.0.1:$port" --token-file "$tmp/token" --label fw=bench \
			--label "device=d$i" --session-period 20 -F 4999 -g -- "${run[@]}" "$burn" 600 2 \
			>/dev/null 2>"$tmp/agent$i.log" &
		agents+=($!)
		pids+=($!)
	done
}
cpu_s() { # PID: its CPU seconds so far (utime + stime)
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0
}
stop_agents() { for p in "${agents[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
has_sessions_table() {
	[ "$(sql "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'perflens_sessions'")" = 1 ]
}
labelled() { # KEY VALUE: the condition "the sample's session has label KEY=VALUE", in either schema
	if has_sessions_table; then
		echo "session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, '$1')] = '$2')"
	else
		echo "labels.value[indexOf(labels.key, '$1')] = '$2'"
	fi
}
chpid=$(cat "$tmp/ch/s1/pid")

# ─── 1. live ──────────────────────────────────────────────────────────
bench_fleet_collector "$tmp/spool1" "$tmp/collect1.log" "$tmp/keep"
start_agents
t0=$(now_s)
sleep "$secs"
stop_agents
kill -TERM $col
wait $col || true
t1=$(now_s)
live=$(sql "SELECT count() FROM perflens_samples")
live_sessions=$(sql "SELECT uniqExact(session) FROM perflens_samples")
lrate=$(python3 -c 'import sys; l,a,b=map(float,sys.argv[1:]); print("%.0f" % (l/(b-a)))' "$live" "$t0" "$t1")

# ─── 2. ingest ────────────────────────────────────────────────────────
rows=()
ingest() { # NAME PERFLENS: one ingest of the kept sessions by that perflens; a row in rows
	local name=$1 pl=$2 spool=$tmp/spool-$1 n=0 f
	# the collector makes them again, empty (the symbol cache stays)
	for f in perflens_minutes perflens_samples perflens_stacks perflens_sessions; do
		sql "DROP TABLE IF EXISTS $f" >/dev/null
	done
	mkdir -p "$spool/sessions"
	: >"$tmp/names"
	for f in "$tmp"/keep/*.plens; do
		cp "$f" "$spool/sessions/"
		printf 'fw=bench\ndevice=replay\n' >"$spool/sessions/$(basename "$f").labels"
		echo "session $(basename "$f" .plens) " >>"$tmp/names"
		n=$((n + 1))
	done
	local ch0 s0 s1 cpu ch1 load perf=""
	ch0=$(cpu_s "$chpid")
	s0=$(now_s)
	bench_fleet_collector "$spool" "$tmp/collect-$name.log" "" "$pl"
	if [ "${PL_BENCH_PERF:-}" = 1 ]; then
		perf record -q -F 999 -e cpu-clock -p "$chpid,$col" -o "$tmp/perf-$name.data" 2>/dev/null &
		perf=$!
	fi
	# the programs beside run when nothing else wants the CPU (SCHED_IDLE: the
	# bench itself runs at nice 19, so nice alone cannot rank them below the
	# collector), as viewer-fleet-collect-test runs its programs at nice 19:
	# 16 busy threads at the collector's priority would measure the share of
	# 2 cores it gets, not its ingest
	start_agents idle
	while [ "$(grep -c 'left by an earlier run' "$tmp/collect-$name.log")" -lt "$n" ] ||
		[ "$(grep -E ': session .* stored: |was not stored' "$tmp/collect-$name.log" | grep -cF -f "$tmp/names")" -lt "$n" ]; do
		kill -0 $col 2>/dev/null || bench_die "the collector died: $(tail -c 300 "$tmp/collect-$name.log")"
		sleep 0.05
	done
	s1=$(now_s)
	cpu=$(cpu_s $col)
	ch1=$(cpu_s "$chpid")
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	[ -z "$perf" ] || { kill -INT "$perf" 2>/dev/null || true; wait "$perf" || true; }
	stop_agents
	kill -TERM $col
	wait $col || true
	local replayed
	replayed=$(sql "SELECT count() FROM perflens_samples WHERE $(labelled device replay)")
	# merged, as they stay: what a sample costs on disk
	sql "OPTIMIZE TABLE perflens_samples FINAL" >/dev/null
	sql 'OPTIMIZE TABLE `.inner.perflens_minutes` FINAL' >/dev/null
	local disk
	disk=$(sql "SELECT sumIf(bytes_on_disk, table = 'perflens_samples'), sumIf(rows, table = 'perflens_samples'),
		sumIf(bytes_on_disk, table = '.inner.perflens_minutes'),
		sumIf(bytes_on_disk, table IN ('perflens_sessions', 'perflens_stacks'))
		FROM system.parts WHERE active AND database = currentDatabase() FORMAT TabSeparated")
	local hits
	hits=$(grep ': session .*: settings' "$tmp/collect-$name.log" | head -"$n" |
		sed -n 's/.*addresses: \([0-9]*\) from the symbol cache, \([0-9]*\) symbolized.*/\1 \2/p' |
		awk '{ h += $1; s += $2 } END { print h + 0, s + 0 }' || true)
	rows+=("$(python3 - "$name" "$n" "$replayed" "$s0" "$s1" "$cpu" "$ch0" "$ch1" "$disk" "$hits" "$load" <<'PY'
import sys
name, n, r, s0, s1, c, a, b, disk, hits, load = sys.argv[1:]
r, s0, s1, c, a, b = int(r), float(s0), float(s1), float(c), float(a), float(b)
sb, srows, mb, side = (int(x) for x in disk.split("\t"))
wall, h = s1 - s0, b - a
per = lambda x: "%.0f" % (r / x) if x else "-"
print("| %s: %s stored sessions taken by a started collector | %d | %.2f | %.0f | %.2f | %s | %.2f | %s | %s | %d (%.1f per sample) | %d | %d | %s | %s |"
      % (name, n, r, wall, r / wall, c, per(c), h, per(h), per(max(c, h)), sb,
         sb / srows if srows else 0, mb, side, hits, load))
PY
)")
	if [ -n "$perf" ]; then
		{
			echo "# perf: ClickHouse (pid $chpid) and the collector during the $name ingest"
			echo "## by binary"
			perf report -i "$tmp/perf-$name.data" --no-children --sort comm,dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15 || true
			echo "## top symbols"
			perf report -i "$tmp/perf-$name.data" --no-children --sort comm,dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40 || true
		} >"$outdir/fleet-ingest-perf-$name.txt"
	fi
}
[ -z "$baseline" ] || ingest baseline "$(realpath "$baseline/perflens")"
ingest this "$perflens"

out="$outdir/fleet-ingest.md"
{
	echo "# perflens collect into ClickHouse: ingest"
	echo
	echo "\`bench/fleet-ingest.sh $build $nagents $secs${baseline:+ $baseline}\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, ClickHouse $(sql 'SELECT version()')"
	echo
	echo "Live: $nagents agents (burn, -F 4999, fp, 20 s sessions) into the collector: $live samples in $live_sessions sessions over $(python3 -c "print('%.1f' % ($t1 - $t0))") s, $lrate samples/s (what the agents give)."
	echo
	echo "| ingest ($nagents agents reporting beside, their programs SCHED_IDLE) | samples | seconds | samples/s | collector CPU s | samples per collector CPU s | ClickHouse CPU s | samples per ClickHouse CPU s | samples/s, CPU bound (one core each) | samples table, bytes on disk | rollup, bytes | sessions + stacks, bytes | addresses (symbol cache, symbolized) | load average at the end |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "The CPU-bound rate is the samples over the busier of the two (the collector loads a session while the one before is being inserted, so on 2 cores they overlap): what the ingest path takes when it is not waiting for a CPU the shared machine gives others.  ClickHouse's CPU also counts the sessions of the agents beside, stored meanwhile: an upper bound of its cost.  Bytes on disk are of every row of the table (the replayed sessions and those beside), merged."
} >"$out"
cat "$out"
