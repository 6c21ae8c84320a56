#!/usr/bin/env bash
# tracepoints.sh — tracepoints on the real kernel (issue 19), perf as the
# oracle:
#   wakeup_fields_match_perf  `perf record -k CLOCK_MONOTONIC -e
#       sched:sched_wakeup` runs the agent, which records the same
#       tracepoint on the workload it starts (marks, 4 threads: futex and
#       timer wakeups); every hit perf saw in the workload's threads must be
#       in `perflens report --tracepoints` with the same decoded fields
#       (comm, pid, prio, target_cpu) and thread, and nothing else: the two
#       multisets are compared exactly.  (-B -N: perf 6.1's build-id pass
#       asserts on this kernel's records; the oracle needs no build-ids.)
#   format_sent_once          the capture holds the tracepoint's tracefs
#       format exactly once, byte for byte as the kernel's.
#   bad_tracepoint_refused    --event sched:no_such_event exits 2 with a
#       sentence naming it.
# PL_AGENT: the agent under test (else the build's).
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} MARKS=$B/workloads/marks
DUMP=$B/tools/pl-dump
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok tracepoints: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/pl-trace-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="wakeup_fields_match_perf format_sent_once bad_tracepoint_refused"
pl_plan $ALL
for x in "$PERFLENS" "$AGENT" "$MARKS" "$DUMP"; do
	[ -x "$x" ] || { for n in $ALL; do fail "$n" "$x not built (make)"; done; exit 1; }
done
command -v perf >/dev/null || { for n in $ALL; do fail "$n" "perf missing (ci/deps.sh)"; done; exit 1; }

# the kernel asked directly, never through the agent
if why=$(pl_perf_refused); then
	for n in $ALL; do skip "$n" "$why"; done
	exit 0
fi
fmt=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/events/sched/sched_wakeup/format" ] && fmt=$d/events/sched/sched_wakeup/format && break
done
if [ -z "$fmt" ]; then
	[ "$(id -u)" = 0 ] || { for n in $ALL; do skip "$n" "[not-root] tracefs is root's"; done; exit 0; }
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -r /sys/kernel/tracing/events/sched/sched_wakeup/format ] && fmt=/sys/kernel/tracing/events/sched/sched_wakeup/format
	[ -n "$fmt" ] || { for n in $ALL; do skip "$n" "[no-kernel-feature:tracefs] no sched/sched_wakeup in tracefs"; done; exit 0; }
fi

# ─── one run, two recorders ─────────────────────────────────────────────
CAP=$TMP/wake.plens
if ! perf record -q -B -N -k CLOCK_MONOTONIC -e sched:sched_wakeup -o "$TMP/perf.data" -- \
	"$AGENT" --output "$CAP" --event sched:sched_wakeup --callgraph fp -- \
	"$MARKS" "$TMP/expect" 4 20 >"$TMP/run.log" 2>&1; then
	for n in wakeup_fields_match_perf format_sent_once; do
		fail "$n" "perf + agent run failed: $(tail -2 "$TMP/run.log" | tr '\n' ' ')"
	done
else
	pid=$(awk '$1 == "pid" { print $2 }' "$TMP/expect")
	perf script -i "$TMP/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null |
		awk -v pid="$pid" '{
			split($2, pt, "/"); if (pt[1] != pid) next
			t = $3; sub(":", "", t)
			c = ""; p = ""; pr = ""; cpu = ""
			for (i = 4; i <= NF; i++) {
				if ($i ~ /^comm=/) c = substr($i, 6)
				else if ($i ~ /^pid=/) p = substr($i, 5)
				else if ($i ~ /^prio=/) pr = substr($i, 6)
				else if ($i ~ /^target_cpu=/) cpu = substr($i, 12) + 0
			}
			printf "%s %s %s %s %s %s\n", pt[2], c, p, pr, cpu, t
		}' | sort >"$TMP/perf.txt"
	"$PERFLENS" report --tracepoints "$CAP" >"$TMP/report.txt" 2>&1
	awk '$4 == "sched:sched_wakeup" {
			c = ""; p = ""; pr = ""; cpu = ""
			for (i = 5; i <= NF; i++) {
				if ($i ~ /^comm=/) c = substr($i, 6)
				else if ($i ~ /^pid=/) p = substr($i, 5)
				else if ($i ~ /^prio=/) pr = substr($i, 6)
				else if ($i ~ /^target_cpu=/) cpu = substr($i, 12) + 0
			}
			printf "%s %s %s %s %s\n", $2, c, p, pr, cpu
		}' "$TMP/report.txt" | sort >"$TMP/ours.txt"
	cut -d' ' -f1-5 "$TMP/perf.txt" | sort >"$TMP/perf5.txt"
	np=$(wc -l <"$TMP/perf5.txt") no=$(wc -l <"$TMP/ours.txt")
	if [ "$np" -lt 10 ]; then
		fail wakeup_fields_match_perf "perf saw only $np wakeups by the workload: no oracle"
	elif ! d=$(diff "$TMP/perf5.txt" "$TMP/ours.txt"); then
		fail wakeup_fields_match_perf "perf $np hits, ours $no; differences: $(echo "$d" | head -6 | tr '\n' ' ')"
	else
		ok wakeup_fields_match_perf
		echo "# sched_wakeup: $np hits by the workload's $(cut -d' ' -f1 "$TMP/ours.txt" | sort -u | wc -l) threads, fields identical to perf script's"
	fi
	# the format, once, as tracefs has it
	"$DUMP" "$CAP" >"$TMP/dump.txt" 2>&1
	nf=$(grep -c 'FILE_CHUNK kind=5 .*name=sched:sched_wakeup' "$TMP/dump.txt")
	len=$(grep -m1 'FILE_CHUNK kind=5 .*name=sched:sched_wakeup' "$TMP/dump.txt" | sed 's/.* len=\([0-9]*\).*/\1/')
	klen=$(wc -c <"$fmt")
	if [ "$nf" = 1 ] && [ "$len" = "$klen" ]; then
		ok format_sent_once
	else
		fail format_sent_once "format chunks: $nf, length $len, tracefs's $klen"
	fi
fi

# ─── a tracepoint that does not exist ───────────────────────────────────
out=$("$AGENT" --output "$TMP/x.plens" --event sched:no_such_event -- true 2>&1)
rc=$?
if [ $rc = 2 ] && echo "$out" | grep -q 'sched:no_such_event'; then
	ok bad_tracepoint_refused
else
	fail bad_tracepoint_refused "exit $rc: $out"
fi
