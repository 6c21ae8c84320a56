#!/usr/bin/env bash
# bench/fleet-ingest.sh — how fast `perflens collect` stores samples into
# ClickHouse (Debian's 18.16, started here on loopback as a user process by
# ci/clickhouse/server.sh), with real agents beside it on the same machine.
#
#   bench/fleet-ingest.sh [BUILD_DIR] [AGENTS] [SECONDS]
#
# 1. Live: AGENTS agents (default 8) profile the burn workload (2 threads,
#    -F 4999, fp stacks, 20 s sessions) for SECONDS (default 40) into one
#    collector (--keep-sessions): the samples stored per second of run are
#    what the agents give, not what the collector could take.
# 2. Ingest: the kept sessions are put in a new collector's work directory
#    (what a collector finds after a crash) with the tables of samples
#    emptied (the symbol cache stays: a running site's steady state), and
#    that collector started with AGENTS agents reporting to it beside (the
#    programs they profile under SCHED_IDLE, the agents not): the
#    time from its start until it said every one of those sessions stored
#    (loaded, symbolized, cut into blocks, inserted: its "stored" lines)
#    gives the samples per second its whole ingest path takes.  The figure
#    is of one run.
# Writes bench/results/fleet-ingest.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
nagents=${2:-8}
secs=${3:-40}
perflens=$(realpath "$build/perflens")
agent=$(realpath "$build/perflens-agent")
burn=$(realpath "$build/workloads/burn")
outdir=${PL_BENCH_OUT:-bench/results}
mkdir -p "$outdir"
tmp=$(mktemp -d /tmp/pl-bench-fleet-XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	ci/clickhouse/server.sh stop "$tmp/ch" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ci/clickhouse/server.sh start "$tmp/ch" 1 >"$tmp/ch.log" 2>&1 ||
	{ echo "bench: ClickHouse did not start: $(tail -c 300 "$tmp/ch.log")" >&2; exit 1; }
. "$tmp/ch/env"
url=$PL_CH_URLS cred=$PL_CH_CREDENTIALS
sql() { curl -sS --fail -u "$(cat "$cred")" --data-binary "$1" "$url/"; }
head -c 24 /dev/urandom | base64 >"$tmp/token" && chmod 600 "$tmp/token"

collector() { # SPOOL LOG [KEEP]
	"$perflens" collect --listen 127.0.0.1:0 --clickhouse "$url" --clickhouse-credentials "$cred" \
		--token-file "$tmp/token" --spool "$1" ${3:+--keep-sessions "$3"} 2>"$2" &
	col=$!
	pids+=($col)
	port=
	for _ in $(seq 200); do
		port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$2")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "bench: perflens collect did not listen: $(tail -c 300 "$2")" >&2; exit 1; }
}
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

# ─── 1. live ──────────────────────────────────────────────────────────
collector "$tmp/spool1" "$tmp/collect1.log" "$tmp/keep"
start_agents
t0=$(date +%s.%N)
sleep "$secs"
stop_agents
kill -TERM $col
wait $col || true
t1=$(date +%s.%N)
live=$(sql "SELECT count() FROM perflens_samples")
live_sessions=$(sql "SELECT uniqExact(session) FROM perflens_samples")

# ─── 2. ingest ────────────────────────────────────────────────────────
# the collector makes them again, empty (the symbol cache stays)
for t in perflens_minutes perflens_samples perflens_stacks; do sql "DROP TABLE $t" >/dev/null; done
mkdir -p "$tmp/spool2/sessions"
n=0
for f in "$tmp"/keep/*.plens; do
	cp "$f" "$tmp/spool2/sessions/"
	printf 'fw=bench\ndevice=replay\n' >"$tmp/spool2/sessions/$(basename "$f").labels"
	echo "session $(basename "$f" .plens) " >>"$tmp/names"
	n=$((n + 1))
done
chpid=$(cat "$tmp/ch/s1/pid")
ch0=$(cpu_s "$chpid")
s0=$(date +%s.%N)
collector "$tmp/spool2" "$tmp/collect2.log"
# the programs beside run when nothing else wants the CPU (SCHED_IDLE: the
# bench itself runs at nice 19, so nice alone cannot rank them below the
# collector), as viewer-fleet-collect-test runs its programs at nice 19:
# 16 busy threads at the collector's priority would measure the share of
# 2 cores it gets, not its ingest
start_agents idle
while [ "$(grep -c 'left by an earlier run' "$tmp/collect2.log")" -lt "$n" ] ||
	[ "$(grep -E ': session .* stored: |was not stored' "$tmp/collect2.log" | grep -cF -f "$tmp/names")" -lt "$n" ]; do
	kill -0 $col 2>/dev/null || { echo "bench: the collector died: $(tail -c 300 "$tmp/collect2.log")" >&2; exit 1; }
	sleep 0.05
done
s1=$(date +%s.%N)
cpu=$(cpu_s $col)
ch1=$(cpu_s "$chpid")
load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_agents
kill -TERM $col
wait $col || true
replayed=$(sql "SELECT count() FROM perflens_samples WHERE labels.value[indexOf(labels.key, 'device')] = 'replay'")
read -r lrate irate wall <<<"$(python3 -c 'import sys
l,t0,t1,r,s0,s1=map(float,sys.argv[1:])
print("%.0f %.0f %.2f" % (l/(t1-t0), r/(s1-s0), s1-s0))' "$live" "$t0" "$t1" "$replayed" "$s0" "$s1")"
per_cpu=$(python3 -c 'import sys; r,c=map(float,sys.argv[1:]); print("%.0f" % (r/c) if c else "-")' "$replayed" "$cpu")
# ClickHouse's CPU over the same span (it also took the live agents' sessions)
read -r ch_cpu ch_per bound <<<"$(python3 -c 'import sys
r,c,a,b=map(float,sys.argv[1:]); h=b-a
print("%.2f %s %s" % (h, "%.0f" % (r/h) if h else "-", "%.0f" % (r/max(c,h)) if max(c,h) else "-"))' "$replayed" "$cpu" "$ch0" "$ch1")"
hits=$(grep ': session .*: settings' "$tmp/collect2.log" | head -"$n" |
	sed -n 's/.*addresses: \([0-9]*\) from the symbol cache, \([0-9]*\) symbolized.*/\1 \2/p' |
	awk '{ h += $1; s += $2 } END { print h + 0, s + 0 }')

out="$outdir/fleet-ingest.md"
{
	echo "# perflens collect into ClickHouse: ingest"
	echo
	echo "\`bench/fleet-ingest.sh $build $nagents $secs\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, ClickHouse $(sql 'SELECT version()')"
	echo
	echo "| | samples | seconds | samples/s | collector CPU s | samples per collector CPU s | ClickHouse CPU s | samples per ClickHouse CPU s | samples/s, CPU bound (one core each) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	echo "| live: $nagents agents (burn, -F 4999, fp, 20 s sessions) into the collector, $live_sessions sessions | $live | $(python3 -c "print('%.1f' % ($t1 - $t0))") | $lrate | | | | | |"
	echo "| ingest: $n stored sessions taken by a started collector, $nagents agents reporting beside (their programs SCHED_IDLE) | $replayed | $wall | $irate | $cpu | $per_cpu | $ch_cpu | $ch_per | $bound |"
	echo
	echo "Ingest's addresses (from the symbol cache, symbolized): $hits.  Load average at the end of the ingest: $load (the machine is shared)."
	echo "The CPU-bound rate is the samples over the busier of the two (the collector loads a session while the one before is being inserted, so on 2 cores they overlap): what the ingest path takes when it is not waiting for a CPU the shared machine gives others."
} >"$out"
cat "$out"
