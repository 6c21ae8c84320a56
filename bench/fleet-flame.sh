#!/usr/bin/env bash
# bench/fleet-flame.sh — how long the fleet's flame graph takes over a large
# store: `perflens fleet report` and `fleet export` (the flame graph's
# stacks) over N stored samples (default 100 M), in Debian's ClickHouse
# (18.16) started here on loopback by ci/clickhouse/server.sh.
#
#   bench/fleet-flame.sh [BUILD_DIR] [MILLIONS]
#
# 1. Real stacks: two real agents (the burn workload; Debian's bzip2)
#    report for a few seconds to `perflens collect`, which symbolizes and
#    stores their sessions: the interned stacks and their samples'
#    distribution are a real program's.
# 2. The fleet: N samples for 100 devices (device=g0…g99, 4 boards,
#    fw=2.3.0 for the first half and 2.3.1 for the rest), one minute of each
#    device being the next 2,940 real samples (49 Hz; fewer when the real
#    ones are fewer) in their order, cycling, in 10-minute sessions ending
#    now: made server-side (INSERT … SELECT from numbers() joined with the
#    real samples numbered) directly as the per-minute rollup's rows, what
#    the materialized view makes of such samples (see below why the
#    samples' own rows are not written).
# 3. Timed (wall, each the best of 3 runs, the store warm): fleet report
#    (all time: the rollup), fleet report --where fw=2.3.1, fleet export
#    --format collapsed (the flame graph's stacks), fleet export --format
#    svg (a flame graph drawn: each stack weighted by its samples), fleet
#    rank.
# Writes bench/results/fleet-flame.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
build=${1:-build}
millions=${2:-100}
bench_fleet_setup "$build" flame

# ─── 1. real stacks ──────────────────────────────────────────────────
bench_fleet_collector "$tmp/spool" "$tmp/collect.log"
head -c 3000000 /usr/bin/python3 >"$tmp/input"
"$agent" --server "127.0.0.1:$port" --token-file "$tmp/token" --label fw=real --label device=real1 \
	--session-period 3 -F 999 -g -- "$burn" --spawn-every 5 4 2 >/dev/null 2>"$tmp/a1.log" &
a1=$!
"$agent" --server "127.0.0.1:$port" --token-file "$tmp/token" --label fw=real --label device=real2 \
	--session-period 3 -F 999 -g -- "$(command -v bzip2)" -9 -c "$tmp/input" >/dev/null 2>"$tmp/a2.log" &
a2=$!
pids+=($a1 $a2)
sleep 6
kill $a1 $a2 2>/dev/null || true
wait $a1 $a2 2>/dev/null || true
kill -TERM $col
wait $col || true
real=$(sql "SELECT count() FROM perflens_samples")
real_stacks=$(sql "SELECT uniqExact(stack) FROM perflens_samples")
[ "${real:-0}" -gt 0 ] || { echo "bench: no real samples were stored: $(tail -c 300 "$tmp/collect.log")" >&2; exit 1; }

# ─── 2. the fleet, made server-side ──────────────────────────────────
# What a fleet report over all time reads is the per-minute rollup: it is
# made directly.  Writing every sample's row too took this shared 2-core
# machine 20 to 60 minutes at nice 19 (25 to 108 k rows/s with the view,
# measured), so the samples table keeps the real ones only.
n=$((millions * 1000000))
secs=$(( n / (100 * 49) ))
g0=$(date +%s.%N)
# A device's minute at 49 Hz is 2,940 samples: minute m of every device
# takes the real samples m*2940 … (their order: session, time), cycling
# through the real ones, summed per stack; so the rollup's rows are made
# per device, minute and stack, not per sample.
# (fewer real samples than 2940, on a loaded machine: a minute is all of
# them, the devices' rate real/60 Hz)
per=$(( real < 2940 ? real : 2940 ))
minutes=$(( n / (100 * per) ))
slices=$(( real / per ))
# the generated sessions' ids are made server-side (cityHash64 of the
# name), not the collector's: `fleet report --session NAME` does not find
# them, every other question does
sessions=$(( (minutes - 1) / 10 + 1 ))
sql "INSERT INTO perflens_sessions (session, name, event, labels.key, labels.value)
SELECT cityHash64(name), name, 'cpu-clock', ['fw', 'board', 'device'],
	[if(d < 50, '2.3.0', '2.3.1'), concat('kb', toString(d % 4)), concat('g', toString(d))]
FROM (SELECT number % 100 AS d, concat('gen-g', toString(d), '-', toString(intDiv(number, 100))) AS name
	FROM numbers($((sessions * 100))))" >/dev/null
sql "INSERT INTO perflens_minutes (minute, session, block, stack, samples, value)
SELECT minute, cityHash64(name), toUInt32(0), stack, c, c * 20408163
FROM (SELECT number % 100 AS d, intDiv(number, 100) AS m,
	toDateTime(toStartOfMinute(now()) - ($minutes - m) * 60) AS minute,
	concat('gen-g', toString(d), '-', toString(intDiv(m, 10))) AS name,
	toUInt64(m % $slices) AS s
	FROM numbers($((minutes * 100))))
ALL INNER JOIN (SELECT toUInt64(intDiv(k, $per)) AS s, stack, count() AS c FROM
	(SELECT rowNumberInAllBlocks() AS k, stack FROM (SELECT stack FROM perflens_samples
	ORDER BY session, time, time_ns)) WHERE k < $((slices * per)) GROUP BY s, stack) USING s" >/dev/null
g1=$(date +%s.%N)
stored=$(sql "SELECT sum(samples) FROM perflens_minutes")
rollup_rows=$(sql "SELECT count() FROM perflens_minutes")
stacks=$(sql "SELECT uniqExact(stack) FROM perflens_minutes")
bytes=$(sql "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND table = '.inner.perflens_minutes'" 2>/dev/null || echo "?")

# ─── 3. timed ────────────────────────────────────────────────────────
fleet() { "$perflens" fleet "$@" --clickhouse "$url" --clickhouse-credentials "$cred"; }
best() { # OUT ARGS...: the best wall time of 3 runs of fleet ARGS, seconds
	local out=$1 b=""
	shift
	for _ in 1 2 3; do
		local t0 t1
		t0=$(date +%s.%N)
		fleet "$@" >"$out" 2>&1 || { echo "bench: fleet $* failed: $(head -c 300 "$out")" >&2; exit 1; }
		t1=$(date +%s.%N)
		b=$(python3 -c 'import sys; d=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print("%.3f" % (d if not b or d < float(b) else float(b)))' "$t0" "$t1" "$b")
	done
	echo "$b"
}
top=$(sql "SELECT f FROM (SELECT any(frames)[1] AS f FROM perflens_stacks GROUP BY stack) WHERE f != '' LIMIT 1")
t_report=$(best "$tmp/report" report --top 20)
t_where=$(best "$tmp/where" report --where fw=2.3.1 --top 20)
t_export=$(best "$tmp/collapsed" export --format collapsed -o "$tmp/fleet.collapsed")
t_svg=$(best "$tmp/svg" export --format svg -o "$tmp/fleet.svg")
t_rank=$(best "$tmp/rank" rank --function "$top" --top 10)
total=$(sed -n 's/^Fleet: \([0-9]*\) samples.*/\1/p' "$tmp/report")
lines=$(wc -l <"$tmp/fleet.collapsed")
load=$(cut -d' ' -f1-3 /proc/loadavg)

out="$outdir/fleet-flame.md"
{
	echo "# The fleet's flame graph over $millions M stored samples"
	echo
	echo "\`bench/fleet-flame.sh $build $millions\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, ClickHouse $(sql 'SELECT version()'), load average $load"
	echo
	echo "Stored: $stored samples in the per-minute rollup ($rollup_rows rows, $bytes bytes on disk, $stacks distinct stacks), made server-side in $(python3 -c "print('%.0f' % ($g1 - $g0))") s from the $real real samples of burn and bzip2 ($real_stacks real stacks), which the samples table holds."
	echo
	echo "| question | wall s (best of 3) | goal |"
	echo "|---|---:|---|"
	echo "| \`fleet report\` (all time: the per-minute rollup), $total samples | $t_report | ≤ 2 s: $(python3 -c "print('met' if $t_report <= 2 else 'not met')") |"
	echo "| \`fleet report --where fw=2.3.1\` | $t_where | |"
	echo "| \`fleet export --format collapsed\` (the flame graph's stacks, $lines lines) | $t_export | ≤ 2 s: $(python3 -c "print('met' if $t_export <= 2 else 'not met')") |"
	echo "| \`fleet export --format svg\` (a flame graph drawn, $(wc -c <"$tmp/fleet.svg") bytes) | $t_svg | ≤ 2 s: $(python3 -c "print('met' if $t_svg <= 2 else 'not met')") |"
	echo "| \`fleet rank --function '$top'\` (100 devices) | $t_rank | |"
} >"$out"
cat "$out"
