#!/usr/bin/env bash
# tracepoints.sh — tracepoints on the real kernel (issue 19), perf as the
# oracle:
#   wakeup_fields_match_perf  the agent records sched:sched_wakeup on the
#       workload it starts (marks, 4 threads: futex and timer wakeups);
#       every hit an oracle saw in the workload's threads must be in
#       `perflens report --tracepoints` with the same decoded fields (comm,
#       pid, prio, target_cpu) and thread, and nothing else: the two
#       multisets are compared exactly.  The oracle is `perf record -e
#       sched:sched_wakeup` of the same run where perf decodes it, else the
#       kernel's own text of the same run (a tracefs instance);
#       PL_TRACEPOINT_ORACLE=perf|ftrace picks one (see below).
#   format_sent_once          the capture holds the tracepoint's tracefs
#       format exactly once, byte for byte as the kernel's.
#   bad_tracepoint_refused    --event sched:no_such_event exits 2 with a
#       sentence naming it; --event ftrace:print too (the kernel never
#       sends it to perf: perf record gets no sample of it either).
#   markers_all_in_order      `perflens-agent --markers` on marks (4 threads
#       × 10 rounds × 5 lines, include/perflens-marker.h): every line the
#       program says it wrote (its EXPECT file, with gettid()) is in
#       `report --markers`, on that thread, in the program's order, times
#       never going back, and nothing else.
#   markers_stack             each "tN step K" marker's stack holds
#       step_marks(), the function that called pl_mark().
#   intervals_match_sleeps    the begin/end pairs: 40 round_tN intervals
#       with their 40 sleep_tN intervals nested inside (depth 1), none
#       unmatched, each sleep's duration between what the program
#       measured (CLOCK_MONOTONIC) around its clock_nanosleep alone and
#       around the two marker writes with it (10 us either way for the
#       two clocks' reads), not within a fixed time of either: a loaded
#       machine may stop the thread between a clock read and a write.
#   pair_intervals            `report --markers --pair 'step N even;step N
#       odd'` (two regexes the user pairs): per thread, one interval from
#       each "tN step 2j" marker to its "tN step 2j+1", 20 in all, each
#       starting and ending at those markers' times as the marker table
#       lists them; a --pair without ';' exits 2 saying what it wants.
# PL_AGENT: the agent under test (else the build's).
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} MARKS=$B/workloads/marks
DUMP=$B/tools/pl-dump
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok tracepoints: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/pl-trace-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="wakeup_fields_match_perf format_sent_once bad_tracepoint_refused markers_all_in_order markers_stack intervals_match_sleeps pair_intervals"
pl_plan $ALL
for x in "$PERFLENS" "$AGENT" "$MARKS" "$DUMP"; do
	[ -x "$x" ] || { for n in $ALL; do fail "$n" "$x not built (make)"; done; exit 1; }
done
command -v perf >/dev/null || { for n in $ALL; do fail "$n" "perf missing (ci/deps.sh)"; done; exit 1; }
command -v python3 >/dev/null || { for n in $ALL; do fail "$n" "python3 missing (ci/deps.sh)"; done; exit 1; }

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

# ─── one run, the agent and its oracles ─────────────────────────────────
# Two oracles can watch the agent's run, each decoding the same event
# without PerfLens's code:
#   perf    `perf record` of the run, decoded by `perf script` (libtraceevent);
#   ftrace  a private tracefs instance with the event enabled for the run's
#           tasks: the kernel prints each hit's fields itself, from the same
#           print fmt as the format file.
# perf decodes no tracepoint sample when the kernel is much newer than it
# (Debian 12's perf 6.1 under a 6.18 kernel prints only "'trace' not valid
# for unknown events"), so the case uses perf where it decodes and ftrace
# otherwise, and says which.  PL_TRACEPOINT_ORACLE=ftrace (or perf) runs
# the case with that oracle alone, so that each can be exercised on a
# machine where both work.
oracle=${PL_TRACEPOINT_ORACLE:-auto}
case $oracle in auto | perf | ftrace) ;; *)
	fail wakeup_fields_match_perf "PL_TRACEPOINT_ORACLE=$oracle: want auto, perf or ftrace"
	oracle=auto ;;
esac
tfs=${fmt%/events/*}
inst=$tfs/instances/pl-wake-$$
ftrace_off() {
	[ -d "$inst" ] || return 0
	echo 0 >"$inst/tracing_on"
	for e in sched_wakeup sched_process_fork sched_process_exec sched_process_exit; do
		echo 0 >"$inst/events/sched/$e/enable"
	done
	rmdir "$inst"
}
trap 'ftrace_off 2>/dev/null; pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
# The instance records every CPU's hits, whoever runs (ftrace's own pid
# filter, set_event_pid, misses and adds the odd wakeup around its per-CPU
# switch bookkeeping); forks, execs and exits are recorded so that the
# workload's threads can be told from the agent that forked it.
ftrace_err=
if [ "$oracle" != perf ]; then
	if ! mkdir "$inst" 2>"$TMP/ftrace.err"; then
		ftrace_err="no tracefs instance: $(head -c 200 "$TMP/ftrace.err")"
	elif ! { echo 0 >"$inst/tracing_on" && echo 8192 >"$inst/buffer_size_kb" &&
		echo 1 >"$inst/events/sched/sched_wakeup/enable" &&
		echo 1 >"$inst/events/sched/sched_process_fork/enable" &&
		echo 1 >"$inst/events/sched/sched_process_exec/enable" &&
		echo 1 >"$inst/events/sched/sched_process_exit/enable" &&
		echo 1 >"$inst/tracing_on"; } 2>"$TMP/ftrace.err"; then
		ftrace_err="tracefs refused the instance's settings: $(head -c 200 "$TMP/ftrace.err")"
	fi
fi
# --buildid-mmap: the agent asks for build-ids in its mmap events, and the
# kernel (6.1's perf_event_mmap_output) leaves that flag set in the mmap
# record it then writes for perf too, over maj/min/ino.  perf 6.1 reads such
# a record as a build-id of 254 bytes, asserts (util/build-id.c:1010) and
# smashes its stack: perf script died on every run in CI.  With build-ids
# asked for by perf as well, every record it gets is true.
CAP=$TMP/wake.plens
set -- "$AGENT" --output "$CAP" --event sched:sched_wakeup --callgraph fp -- "$MARKS" "$TMP/expect" 4 20
[ "$oracle" = ftrace ] ||
	set -- perf record -q --buildid-mmap -k CLOCK_MONOTONIC -e sched:sched_wakeup -o "$TMP/perf.data" -- "$@"
"$@" >"$TMP/run.log" 2>&1
rec=$?
if [ -d "$inst" ]; then
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >"$TMP/ftrace.txt"
	# a full buffer overwrites the oldest hits: such a trace is no oracle
	overrun=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' "$inst"/per_cpu/cpu*/stats)
	[ "$overrun" = 0 ] || ftrace_err="the tracefs buffer overran ($overrun events lost)"
	ftrace_off
fi
if [ $rec != 0 ]; then
	for n in wakeup_fields_match_perf format_sent_once; do
		fail "$n" "the agent's run failed: $(tail -2 "$TMP/run.log" | tr '\n' ' ')"
	done
else
	pid=$(awk '$1 == "pid" { print $2 }' "$TMP/expect")
	# each oracle's hits by the workload: "tid comm pid prio target_cpu"
	np=0 perf_err="not run (PL_TRACEPOINT_ORACLE=$oracle)"
	if [ "$oracle" != ftrace ]; then
		perf script -i "$TMP/perf.data" -F comm,pid,tid,time,event,trace >"$TMP/perf.script" 2>"$TMP/perf.err"
		awk -v pid="$pid" '{
				# until its exec completes the child is still the agent
				# (comm perflens-agent): the inherited perf events see it
				# (sched_exec wakes a migration thread); those of the agent
				# start at exec (enable_on_exec), as they should
				split($2, pt, "/"); if (pt[1] != pid || $1 == "perflens-agent") next
				c = ""; p = ""; pr = ""; cpu = ""
				for (i = 4; i <= NF; i++) {
					if ($i ~ /^comm=/) c = substr($i, 6)
					else if ($i ~ /^pid=/) p = substr($i, 5)
					else if ($i ~ /^prio=/) pr = substr($i, 6)
					else if ($i ~ /^target_cpu=/) cpu = substr($i, 12) + 0
				}
				printf "%s %s %s %s %s\n", pt[2], c, p, pr, cpu
			}' "$TMP/perf.script" | sort >"$TMP/perf.txt"
		np=$(wc -l <"$TMP/perf.txt")
		perf_err="perf $(perf --version 2>/dev/null | awk '{ print $3 }') decoded $np hits: $(tail -2 "$TMP/perf.err" | tr '\n' ' ')"
	fi
	nft=0
	if [ -z "$ftrace_err" ] && [ -s "$TMP/ftrace.txt" ]; then
		# A line: "  COMM-TID  [CPU] FLAGS  SECS: EVENT: FIELDS".  The
		# workload's tasks are its pid from its exec on and every task it
		# forks after that; hits before the exec are the agent's child.
		# Two kinds of hit are optional, neither testing any decoding:
		# wakeups of a perf ring's reader (this agent, perf, any other
		# profiler running: the kernel wakes a reader from perf's own
		# irq work, perf_pending_irq, on whatever task is current, and
		# perf records no tracepoint hit there, which ftrace does), and
		# a thread's hits after its sched_process_exit (whether perf
		# still sees them depends on where the kernel tears a task's
		# events down: 6.18 does it before exit_mm wakes the joiner).
		# Each line is "R ..." (required) or "O ..." (optional).
		awk -v pid="$pid" '
			/^#/ { next }
			{
				if (!match($0, /-[0-9]+ +(\([ 0-9-]+\) +)?\[[0-9]+\]/)) next
				hdr = substr($0, RSTART + 1, RLENGTH - 1); split(hdr, h, " "); tid = h[1]
				rest = substr($0, RSTART + RLENGTH)
				if (!match(rest, / (sched_wakeup|sched_process_fork|sched_process_exec|sched_process_exit): /)) next
				ev = substr(rest, RSTART + 1, RLENGTH - 3); n = split(substr(rest, RSTART + RLENGTH), f, " ")
				delete kv
				for (i = 1; i <= n; i++) if ((j = index(f[i], "=")) > 0) kv[substr(f[i], 1, j - 1)] = substr(f[i], j + 1)
				if (ev == "sched_process_exec") { if (kv["pid"] == pid) live[pid] = 1; next }
				if (ev == "sched_process_fork") {
					if (kv["child_pid"] == pid) agent = kv["pid"]
					if (kv["pid"] in live) live[kv["child_pid"]] = 1
					next
				}
				if (ev == "sched_process_exit") { if (tid in live) gone[tid] = 1; next }
				if (!(tid in live)) next
				printf "%s %s %s %s %s %s\n", (kv["pid"] == agent || kv["comm"] == "perflens-agent" || kv["comm"] == "perf" || tid in gone) ? "O" : "R",
					tid, kv["comm"], kv["pid"], kv["prio"], kv["target_cpu"] + 0
			}' "$TMP/ftrace.txt" >"$TMP/ftrace.hits"
		sed -n 's/^R //p' "$TMP/ftrace.hits" | sort >"$TMP/ftrace5.txt"
		sed -n 's/^O //p' "$TMP/ftrace.hits" | sort >"$TMP/ftrace-optional.txt"
		nft=$(wc -l <"$TMP/ftrace5.txt")
		[ "$nft" -ge 10 ] || ftrace_err="ftrace saw only $nft wakeups by the workload"
	elif [ -z "$ftrace_err" ]; then
		ftrace_err=${inst:+not run (PL_TRACEPOINT_ORACLE=$oracle)}
	fi
	# the oracle: perf where it decoded the run, else ftrace
	if [ "$oracle" != ftrace ] && [ "$np" -ge 10 ]; then
		used=perf want=$TMP/perf.txt nw=$np optional=
	elif [ "$oracle" != perf ] && [ -z "$ftrace_err" ]; then
		used=ftrace want=$TMP/ftrace5.txt nw=$nft optional=$TMP/ftrace-optional.txt
	else
		used=
	fi
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
	no=$(wc -l <"$TMP/ours.txt")
	if [ -z "$used" ]; then
		fail wakeup_fields_match_perf "no oracle for the workload's wakeups (pid $pid): perf: $perf_err; ftrace: $ftrace_err"
	elif ! d=$(python3 - "$want" "$TMP/ours.txt" ${optional:+"$optional"} 2>"$TMP/cmp.err" <<'PY'
# every required hit recorded, and nothing else but optional ones
import sys
from collections import Counter
want, ours = (Counter(open(f).read().splitlines()) for f in sys.argv[1:3])
opt = Counter(open(sys.argv[3]).read().splitlines()) if len(sys.argv) > 3 else Counter()
missing, extra = want - ours, (ours - want) - opt
for l in sorted(missing.elements()): print('<', l)
for l in sorted(extra.elements()): print('>', l)
print(sum(((ours - want) & opt).values()), 'of', sum(opt.values()), file=sys.stderr)
sys.exit(1 if missing or extra else 0)
PY
	); then
		lost=$("$PERFLENS" report "$CAP" 2>&1 | grep -m1 -i 'lost' | sed 's/^ *//')
		fail wakeup_fields_match_perf "$used $nw hits, ours $no (${lost:-no loss line}); missing (<) or not the oracle's (>): $(echo "$d" | head -6 | tr '\n' ' ')"
	else
		ok wakeup_fields_match_perf
		echo "# sched_wakeup: oracle $used; $nw hits by the workload's $(cut -d' ' -f1 "$TMP/ours.txt" | sort -u | wc -l) threads, fields identical to the oracle's"
		[ "$used" = perf ] || echo "# perf was not the oracle: $perf_err; optional hits (a perf reader woken, or after a thread's exit) recorded: $(cat "$TMP/cmp.err")"
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
out2=$("$AGENT" --output "$TMP/x.plens" --event ftrace:print -- true 2>&1)
rc2=$?
if [ $rc = 2 ] && echo "$out" | grep -q 'sched:no_such_event' && [ $rc2 = 2 ] &&
	echo "$out2" | grep -q -- '--markers'; then
	ok bad_tracepoint_refused
else
	fail bad_tracepoint_refused "exit $rc: $out; ftrace:print: exit $rc2: $out2"
fi

# ─── markers ────────────────────────────────────────────────────────────
MCAP=$TMP/marks.plens
if ! "$AGENT" --output "$MCAP" --markers --callgraph fp -- "$MARKS" "$TMP/mexpect" 4 10 \
	>"$TMP/marks.log" 2>&1; then
	for n in markers_all_in_order markers_stack intervals_match_sleeps pair_intervals; do
		fail "$n" "the agent cannot record markers: $(tail -2 "$TMP/marks.log" | tr '\n' ' ')"
	done
	exit 1
fi
"$PERFLENS" report --markers "$MCAP" >"$TMP/markers.txt" 2>&1
python3 - "$TMP/mexpect" "$TMP/markers.txt" >"$TMP/markers.res" <<'PY'
import re, sys
from collections import defaultdict
want, slept = defaultdict(list), defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] == 'mark': want[f[1]].append(' '.join(f[2:]))
    if f[0] == 'slept': slept[f[1]].append((f[2], int(f[4]) / 1e6, int(f[5]) / 1e6))
got, steps_ok, steps, times, ivs, unmatched, total = defaultdict(list), 0, 0, [], [], None, None
sec, name_col = None, None
for l in open(sys.argv[2]):
    if 'Duration ms' in l: name_col = l.index('Name')
    if l.startswith('Markers:'): sec = 'm'; total = int(l.split()[1]); continue
    if l.startswith('Intervals:'):
        sec = 'i'; unmatched = int(re.search(r'(\d+) unmatched', l).group(1)); continue
    m = re.match(r'\s+(-?[\d.]+)\s+(\d+)\s+(\S+)\s+(.*?)  \[(.*)\]$', l)
    if sec == 'm' and m:
        t, tid, text, stack = float(m.group(1)), m.group(2), m.group(4), m.group(5)
        times.append(t)
        if not text.startswith(('B|', 'E|')):
            got[tid].append(text); steps += 1; steps_ok += 'step_marks' in stack
        continue
    m = re.match(r'\s+(-?[\d.]+)\s+([\d.]+)\s+(\d+)\s', l)
    if sec == 'i' and m and name_col:
        name = l[name_col:].rstrip('\n')
        depth = (len(name) - len(name.lstrip(' '))) // 2
        ivs.append((float(m.group(1)), float(m.group(2)), m.group(3), depth, name.strip()))
nexp = sum(len(v) for v in want.values())
order = all(got[t] == want[t] for t in want) and set(got) == set(want)
mono = all(a <= b for a, b in zip(times, times[1:]))
print('markers', 'ok' if order and mono and total == nexp * 5 else 'bad',
      'want %d step lines (%d in all), got %d of %d lines, per-thread order %s, times %s'
      % (nexp, nexp * 5, steps, total or 0, order, 'monotonic' if mono else 'go back'))
print('stack', 'ok' if steps and steps_ok == steps else 'bad', '%d of %d step markers have step_marks' % (steps_ok, steps))
rounds = [v for v in ivs if v[4].startswith('round_')]
sleeps = defaultdict(list)
for v in ivs:
    if v[4].startswith('sleep_'): sleeps[v[2]].append((v[4], v[1], v[3]))
worst, bad = 0.0, []
for tid, lst in slept.items():
    g = sleeps.get(tid, [])
    if len(g) != len(lst): bad.append('thread %s: %d sleeps, %d intervals' % (tid, len(lst), len(g))); continue
    for (n1, ms, outer), (n2, d, depth) in zip(lst, g):
        worst = max(worst, abs(ms - d))
        if n1 != n2 or not (ms - 0.01 <= d <= outer + 0.01) or depth != 1:
            bad.append('%s %s %.3f ms recorded, not within %.3f to %.3f ms, depth %d' % (tid, n1, d, ms, outer, depth))
nsl = sum(len(v) for v in slept.values())
ok = not bad and len(rounds) == nsl and unmatched == 0 and all(r[3] == 0 for r in rounds)
print('intervals', 'ok' if ok else 'bad', '%d sleeps, %d rounds, %s unmatched, worst |recorded - measured| %.3f ms; %s'
      % (nsl, len(rounds), unmatched, worst, '; '.join(bad[:4])))
PY
res() { grep "^$1 " "$TMP/markers.res" | cut -d' ' -f3-; }
for pair in "markers markers_all_in_order" "stack markers_stack" "intervals intervals_match_sleeps"; do
	set -- $pair
	if grep -q "^$1 ok" "$TMP/markers.res"; then
		ok "$2"
		echo "# $2: $(res "$1")"
	else
		fail "$2" "$(res "$1") (report: $TMP/markers.txt)"
	fi
done

# ─── two regexes paired by the user ─────────────────────────────────────
"$PERFLENS" report --markers --pair 'step [0-9]*[02468]$;step [0-9]*[13579]$' "$MCAP" \
	>"$TMP/pairs.txt" 2>&1
prc=$?
bad_out=$("$PERFLENS" report --markers --pair 'no-semicolon' "$MCAP" 2>&1)
brc=$?
res=$(python3 - "$TMP/pairs.txt" <<'PY'
import re, sys
from collections import defaultdict
steps, ivs, sec, name_col, npair = defaultdict(dict), [], None, None, None
for l in open(sys.argv[1]):
    if 'Duration ms' in l: name_col = l.index('Name')
    if l.startswith('Markers:'): sec = 'm'; continue
    if l.startswith('Intervals:'):
        sec = 'i'; m = re.search(r'(\d+) from --pair', l); npair = int(m.group(1)) if m else None; continue
    m = re.match(r'\s+(-?[\d.]+)\s+(\d+)\s+\S+\s+t\d+ step (\d+)  \[', l)
    if sec == 'm' and m: steps[m.group(2)][int(m.group(3))] = float(m.group(1)); continue
    m = re.match(r'\s+(-?[\d.]+)\s+([\d.]+)\s+(\d+)\s', l)
    if sec == 'i' and m and name_col and 'step' in l[name_col:]:
        ivs.append((m.group(3), float(m.group(1)), float(m.group(2))))
want = []
for tid, ks in steps.items():
    for k in sorted(ks):
        if k % 2 == 0 and k + 1 in ks: want.append((tid, ks[k], (ks[k + 1] - ks[k]) * 1e3))
bad = []
for tid, t0, ms in want:
    if not any(t == tid and abs(s - t0) < 2e-6 and abs(d - ms) < 0.003 for t, s, d in ivs):
        bad.append('%s at %.6f (%.3f ms) missing' % (tid, t0, ms))
ok = not bad and len(ivs) == len(want) == npair == 20
print('ok' if ok else 'bad', '%d intervals from --pair (report says %s), %d step pairs in the marker table; %s'
      % (len(ivs), npair, len(want), '; '.join(bad[:3])))
PY
)
if [ $prc = 0 ] && [ "${res%% *}" = ok ] && [ $brc = 2 ] && echo "$bad_out" | grep -q 'BEGIN_REGEX;END_REGEX'; then
	ok pair_intervals
	echo "# pair_intervals: ${res#ok }"
else
	fail pair_intervals "report rc $prc: ${res#* }; bad --pair: rc $brc, '$(echo "$bad_out" | head -1)'"
fi
