#!/usr/bin/env bash
# viewer-findings-test.sh — perflens report --findings and --fail-on RULE on
# real agent recordings of real programs: for each rule a program that
# triggers it, the numbers checked against an outside oracle where one
# exists, and quiet programs that must raise nothing.
#   lost      the burn workload with DWARF stacks into a one-page ring:
#             the kernel's LOST records (the report's Quality line is the
#             same count; the kernel is the only witness of a lost record)
#   cpu-hog   burn attached with --pid: /proc/PID/task/TID/schedstat
#             (on-CPU ns) and status (voluntary_ctxt_switches) read before
#             and after the recording
#   runqueue  the same burn, pinned to one CPU: /proc's run_delay
#   page-faults  python3 allocating 64 MiB buffers in a loop, under
#             /usr/bin/time: its minor + major fault counts
#   off-cpu   findings-lock.c (built here): two threads on one mutex, each
#             logging its own time in pthread_mutex_lock
#   unwound   burn-nofp with frame-pointer stacks: stacks stop in burn-nofp;
#             --fail-if 'unwound<99%' states the same share
#             and a thread's start in a libc without names (the lock
#             program read with an empty --sysroot: libc's start_thread is
#             then a bare return address, as Debian armhf's stripped one):
#             the thread's stacks, as many as its samples in the Threads
#             table, are not counted short; the main thread's still are
#   quiet     sleep 1 raises nothing; nor do the lock program's threads
#             (they block: no cpu-hog) and its stacks (frame pointers all
#             the way: no unwound), nor burn's sleeper (no cpu-hog)
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
NOFP=$B/workloads/burn-nofp
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-findings: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
LOCK_SRC=${PL_TOP:-.}/viewer/tests/findings-lock.c
TMP=$(mktemp -d /tmp/plv-findings-XXXXXX)
BG=
trap '[ -n "$BG" ] && kill $BG 2>/dev/null; pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="quiet_sleep fail_on_unknown fail_on_full_report lost_ring lock_waits cpu_hog runqueue_storm page_fault_storm unwound_module unwound_thread_start"
pl_plan $ALL
all_fail() { for n in $ALL; do fail "$n" "$1"; done; exit 1; }
for x in "$PERFLENS" "$AGENT" "$BURN" "$NOFP"; do [ -x "$x" ] || all_fail "$x not built (make)"; done
for x in cc python3 taskset /usr/bin/time; do command -v $x >/dev/null || all_fail "$x missing (ci/deps.sh)"; done

# ─── a quiet program: no finding at all ────────────────────────────────
if ! "$AGENT" --output "$TMP/sleep.plens" -- sleep 1 >"$TMP/sleep.log" 2>&1; then
	if why=$(pl_perf_refused); then for n in $ALL; do skip "$n" "$why"; done; exit 0; fi
	all_fail "the kernel allows perf, but the agent cannot record: $(tail -1 "$TMP/sleep.log")"
fi
"$PERFLENS" report --findings --fail-on lost,cpu-hog,off-cpu,runqueue,page-faults,unwound "$TMP/sleep.plens" \
	>"$TMP/sleep.txt" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q '^  nothing unusual$' "$TMP/sleep.txt" && ! grep -q '^  \[' "$TMP/sleep.txt"; then
	ok quiet_sleep
else fail quiet_sleep "exit $rc: $(grep '^  \[' "$TMP/sleep.txt" | head -2 | tr '\n' ' ')"; fi

"$PERFLENS" report --findings --fail-on 'lost,no-such-rule' "$TMP/sleep.plens" >"$TMP/unk.txt" 2>&1; rc=$?
if [ $rc = 2 ] && grep -q "no rule named 'no-such-rule'; the rules are: lost, cpu-hog, off-cpu, runqueue, page-faults, unwound" "$TMP/unk.txt"; then
	ok fail_on_unknown
else fail fail_on_unknown "exit $rc: $(head -c 200 "$TMP/unk.txt")"; fi

# ─── lost: DWARF samples into a one-page ring ──────────────────────────
"$AGENT" --output "$TMP/lost.plens" --ring-pages 1 --callgraph dwarf -F 4000 -- "$BURN" 1 1 \
	>"$TMP/lost.log" 2>&1
"$PERFLENS" report "$TMP/lost.plens" >"$TMP/lost-full.txt" 2>&1
"$PERFLENS" report --findings --fail-on lost "$TMP/lost.plens" >"$TMP/lost.txt" 2>&1; rc=$?
q=$(sed -n 's/^  LOST \([0-9]*\):.*/\1/p' "$TMP/lost-full.txt")
f=$(sed -n 's/^  \[lost\] \([0-9]*\) records lost.*/\1/p' "$TMP/lost.txt")
if [ $rc = 1 ] && [ -n "$q" ] && [ "$q" -gt 0 ] && [ "$f" = "$q" ] &&
   grep -q "^perflens: --fail-on lost: $q records lost" "$TMP/lost.txt"; then
	ok lost_ring; echo "# $q records lost (Quality: LOST $q)"
else fail lost_ring "exit $rc, finding '$f', Quality LOST '$q'"; fi

# --fail-on without --findings: the whole report, then the gate
"$PERFLENS" report --top 3 --fail-on lost "$TMP/lost.plens" >"$TMP/lost-gate.txt" 2>&1; rc=$?
"$PERFLENS" report --top 3 --fail-on cpu-hog,off-cpu "$TMP/sleep.plens" >"$TMP/sleep-gate.txt" 2>&1; src=$?
if [ $rc = 1 ] && grep -q '^Quality:' "$TMP/lost-gate.txt" && grep -q "^perflens: --fail-on lost: $q records lost" "$TMP/lost-gate.txt" &&
   [ $src = 0 ] && grep -q '^Quality:' "$TMP/sleep-gate.txt" && ! grep -q 'fail-on' "$TMP/sleep-gate.txt"; then
	ok fail_on_full_report
else fail fail_on_full_report "exit $rc (lost) / $src (sleep): $(grep fail-on "$TMP/lost-gate.txt" "$TMP/sleep-gate.txt" | head -2 | tr '\n' ' ')"; fi

# ─── off-cpu: lock waits against the program's own log ─────────────────
if ! cc -O2 -g -fno-omit-frame-pointer -pthread -o "$TMP/findings-lock" "$LOCK_SRC" 2>"$TMP/cc.err"; then
	fail lock_waits "cannot build findings-lock.c: $(head -1 "$TMP/cc.err")"
else
	"$AGENT" --output "$TMP/lock.plens" -- "$TMP/findings-lock" 2 >"$TMP/lock.log" 2>&1
	"$PERFLENS" report --findings --fail-on off-cpu "$TMP/lock.plens" >"$TMP/lock.txt" 2>&1; rc=$?
	own=$(awk '$1 == "lockwait_ms" {s += $3} END {printf "%.1f", s}' "$TMP/lock.log")
	got=$(awk '$1 == "lock" && $2 == "waits" {print $4; exit}' "$TMP/lock.txt")
	# the program's clock reads frame the futex wait it cannot see alone
	# (the lock's fast path, the wake-up): 10 % and 20 ms either way
	if [ $rc = 1 ] && [ -n "$got" ] && grep -q '^  \[off-cpu\]' "$TMP/lock.txt" &&
	   ! grep -q '^  \[cpu-hog\]' "$TMP/lock.txt" &&
	   awk -v a="$got" -v b="$own" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 100 && d <= 0.1 * b + 20) }'; then
		ok lock_waits; echo "# lock waits: report $got ms, the program's own log $own ms"
	else fail lock_waits "exit $rc, report '$got' ms, program '$own' ms: $(grep '^  \[' "$TMP/lock.txt" | head -2 | tr '\n' ' ')"; fi
fi

# ─── cpu-hog: burn attached, /proc before and after ────────────────────
# eight workers and the main thread on one CPU: each always runnable, each
# waiting for the others (the runqueue rule's program too)
taskset -c 0 "$BURN" 15 8 >"$TMP/burn.out" 2>&1 &
BG=$!
sleep 0.5
# TID comm on-CPU-ns runqueue-ns timeslices voluntary-switches clock-ns,
# per thread
# (the clock read with its schedstat: the share held is over that span)
snap() {
	python3 - $BG <<'PY'
import os, sys, time
base = '/proc/%s/task' % sys.argv[1]
for t in sorted(os.listdir(base)):
    try:
        comm = open('%s/%s/comm' % (base, t)).read().strip()
        st = open('%s/%s/schedstat' % (base, t)).read().split()
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        vol = [l.split()[1] for l in open('%s/%s/status' % (base, t)) if l.startswith('voluntary_ctxt_switches')][0]
    except (OSError, IndexError):
        continue
    print(t, comm, st[0], st[1], st[2], vol, now)
PY
}
snap >"$TMP/proc0"
"$AGENT" --output "$TMP/hog.plens" --pid $BG --duration 2 >"$TMP/hog.log" 2>&1
snap >"$TMP/proc1"
kill $BG 2>/dev/null; wait $BG 2>/dev/null; BG=
"$PERFLENS" report --findings --fail-on cpu-hog "$TMP/hog.plens" >"$TMP/hog.txt" 2>&1; rc=$?
# /proc's window holds the recording (and the agent's start and stop): a
# hog there is on-CPU or waiting in the runqueue nearly all of the wall
# time, never blocked much; the report's on-CPU time cannot exceed /proc's
r=$(python3 - "$TMP/proc0" "$TMP/proc1" "$TMP/hog.txt" <<'PY'
import sys, re
rows = lambda f: {l.split()[0]: l.split() for l in open(f) if len(l.split()) == 7}
p0, p1 = rows(sys.argv[1]), rows(sys.argv[2])
hogs = {}
for l in open(sys.argv[3]):
    m = re.match(r'\s+\[cpu-hog\] thread (\d+) (\S+) held a CPU ([\d.]+)% of its ([\d.]+) ms: on-CPU ([\d.]+) ms, preempted ([\d.]+) ms, blocked only ([\d.]+) ms \((\d+) times\)', l)
    if m: hogs[m.group(1)] = m.groups()
bad, notes = [], []
for tid, a in p0.items():
    b = p1.get(tid)
    if not b: continue
    name = a[1]
    oncpu, rq = (int(b[2]) - int(a[2])) / 1e6, (int(b[3]) - int(a[3])) / 1e6
    vol = int(b[5]) - int(a[5])
    wall = (int(b[6]) - int(a[6])) / 1e6
    held = 100.0 * (oncpu + rq) / wall
    h = hogs.get(tid)
    if name.startswith('burn-') or name == 'sleeper':
        want = name != 'sleeper'
        if want and not h: bad.append('%s (/proc: held %.1f%%) not called a hog' % (name, held)); continue
        if not want and h: bad.append('%s (/proc: %d voluntary switches) called a hog' % (name, vol)); continue
        if want and held < 95: bad.append('%s called a hog, /proc: held %.1f%%' % (name, held))
        if want and float(h[4]) > oncpu * 1.02 + 10:
            bad.append('%s on-CPU report %s ms > /proc %.1f ms' % (name, h[4], oncpu))
        if want and int(h[7]) > vol: bad.append('%s blocked %s times, /proc %d' % (name, h[7], vol))
        notes.append('%s %s %.1f%% (report %s ms on-CPU, /proc %.1f ms on-CPU + %.1f ms runqueue of %.0f ms, %d blocks)' % (name, 'hog' if h else 'calm', held, h[4] if h else '-', oncpu, rq, wall, vol))
if not any(v[1] == 'sleeper' for v in p0.values()): bad.append('no sleeper thread in /proc')
if not any(n.startswith('burn-') for n in notes): bad.append('no burn-N thread in both /proc snapshots')
print('BAD ' + '; '.join(bad) if bad else 'OK ' + '; '.join(notes))
PY
)
if [ $rc = 1 ] && [ "${r%% *}" = OK ] && grep -q '^perflens: --fail-on cpu-hog: thread [0-9]* burn-1 held' "$TMP/hog.txt"; then
	ok cpu_hog; echo "# on-CPU report/proc: ${r#OK }"
else fail cpu_hog "exit $rc: ${r#* }"; fi

# ─── runqueue: the same recording, against /proc's run_delay ───────────
# the report's wait of each burn-N thread (from its preemptions) cannot
# exceed /proc's (whose window holds the recording) and /proc must show it
# waited at least 10 % of the time; the lock program (it blocks) and sleep
# raise no runqueue finding
"$PERFLENS" report --findings --fail-on runqueue "$TMP/hog.plens" >"$TMP/rq.txt" 2>&1; rc=$?
r=$(python3 - "$TMP/proc0" "$TMP/proc1" "$TMP/rq.txt" <<'PY'
import sys, re
rows = lambda f: {l.split()[0]: l.split() for l in open(f) if len(l.split()) == 7}
p0, p1 = rows(sys.argv[1]), rows(sys.argv[2])
rep = {}
for l in open(sys.argv[3]):
    m = re.match(r'\s+thread (\d+) (\S+): waited ([\d.]+) ms over (\d+) preemptions, mean ([\d.]+) ms', l)
    if m: rep[m.group(1)] = m.groups()
bad, notes = [], []
for tid, a in p0.items():
    b = p1.get(tid)
    if not b or not a[1].startswith('burn-') or tid not in rep: continue
    rq, slices, wall = (int(b[3]) - int(a[3])) / 1e6, int(b[4]) - int(a[4]), (int(b[6]) - int(a[6])) / 1e6
    got = float(rep[tid][2])
    if got > rq * 1.02 + 10: bad.append('%s waited %.1f ms, /proc %.1f ms' % (a[1], got, rq))
    if rq < 0.1 * wall: bad.append('%s: /proc says it waited only %.1f of %.0f ms' % (a[1], rq, wall))
    # the mean wait per preemption and /proc's per timeslice (a thread
    # that never blocks runs again only after a wait) are shown, not
    # compared: /proc's window also holds the agent's start under load,
    # seconds on a busy machine, where the waits differ
    mean, pmean = float(rep[tid][4]), rq / max(slices, 1)
    notes.append('%s %.1f/%.1f ms (mean %s/%.3f ms)' % (a[1], got, rq, rep[tid][4], rq / max(slices, 1)))
if not notes: bad.append('no burn-N thread listed')
print('BAD ' + '; '.join(bad) if bad else 'OK ' + '; '.join(notes))
PY
)
if [ $rc = 1 ] && [ "${r%% *}" = OK ] && grep -q '^perflens: --fail-on runqueue: threads waited' "$TMP/rq.txt" &&
   ! grep -q '^  \[runqueue\]' "$TMP/lock.txt" "$TMP/sleep.txt"; then
	ok runqueue_storm; echo "# waited report/proc: ${r#OK }"
else fail runqueue_storm "exit $rc: ${r#* } $(grep '^  \[runqueue\]' "$TMP/lock.txt" "$TMP/sleep.txt" | head -1)"; fi

# ─── page-faults: fresh memory in a loop, against /usr/bin/time ────────
"$AGENT" --output "$TMP/pf.plens" -- /usr/bin/time -o "$TMP/pf.time" -f '%R %F' python3 -c '
import time
t = time.time()
while time.time() - t < 1.5:
    b = bytearray(64 << 20)
' >"$TMP/pf.log" 2>&1
"$PERFLENS" report --findings --fail-on page-faults "$TMP/pf.plens" >"$TMP/pf.txt" 2>&1; rc=$?
want=$(awk 'NF == 2 {print $1 + $2}' "$TMP/pf.time")
got=$(sed -n 's/^  \[page-faults\] \([0-9]*\) page faults in .*/\1/p' "$TMP/pf.txt")
# the counter follows /usr/bin/time and its child; time counts the child
if [ $rc = 1 ] && [ -n "$want" ] && [ -n "$got" ] &&
   awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.02 * b + 500) }' &&
   ! grep -q '^  \[page-faults\]' "$TMP/sleep.txt" "$TMP/lock.txt" "$TMP/hog.txt"; then
	ok page_fault_storm; echo "# page faults: report $got, /usr/bin/time $want"
else fail page_fault_storm "exit $rc, report '$got', /usr/bin/time '$want'"; fi

# ─── unwound: frame-pointer stacks through a binary without them ───────
"$AGENT" --output "$TMP/nofp.plens" --callgraph fp -- "$NOFP" 1 1 >"$TMP/nofp.log" 2>&1
"$PERFLENS" report --findings --fail-on unwound "$TMP/nofp.plens" >"$TMP/nofp.txt" 2>&1; rc=$?
"$PERFLENS" report --top 1 --fail-if 'unwound<99%' "$TMP/nofp.plens" >"$TMP/nofp-gate.txt" 2>&1; grc=$?
share=$(sed -n 's/^perflens: --fail-if: \([0-9.]*\)% of stacks are unwound.*/\1/p' "$TMP/nofp-gate.txt")
if [ $rc = 1 ] && [ $grc = 1 ] && [ -n "$share" ] &&
   grep -q "^  \[unwound\] $share% of stacks are unwound to their start; [0-9]* ([0-9.]*%) of the [0-9]* with user frames stop short in burn-nofp$" "$TMP/nofp.txt" &&
   ! grep -q '^  \[unwound\]' "$TMP/lock.txt"; then
	ok unwound_module; echo "# $(grep '^  \[unwound\]' "$TMP/nofp.txt" | head -1)"
else fail unwound_module "exit $rc/$grc, gate share '$share': $(grep '^  \[unwound\]' "$TMP/nofp.txt" "$TMP/lock.txt" | head -2 | tr '\n' ' ')"; fi

# ─── unwound: a thread's start in a libc without names ─────────────────
if [ ! -f "$TMP/lock.plens" ]; then fail unwound_thread_start "no lock recording (see lock_waits)"
else
	mkdir -p "$TMP/empty"
	sym=(--sysroot "$TMP/empty" --binary "$TMP/findings-lock")
	"$PERFLENS" report --findings "${sym[@]}" "$TMP/lock.plens" >"$TMP/ts.txt" 2>&1
	"$PERFLENS" report --top 0 "${sym[@]}" "$TMP/lock.plens" >"$TMP/ts-full.txt" 2>&1
	# the locker's samples of every event (the Threads table shows one)
	locker=0
	for ev in $(sed -n 's/^  samples by event://p' "$TMP/ts-full.txt" | awk '{for (i = 1; i < NF; i += 2) print $i}'); do
		"$PERFLENS" report --top 0 --event "$ev" "${sym[@]}" "$TMP/lock.plens" >"$TMP/ts-ev.txt" 2>&1
		n=$(awk '/^Threads/ {on=1} on && $3 == "locker" {print $4; exit}' "$TMP/ts-ev.txt")
		locker=$((locker + ${n:-0}))
	done
	libc=$(awk '/^Where stacks stop short/ {on=1} on && $3 == "libc.so.6:" {print $2; exit}' "$TMP/ts-full.txt")
	skipped=$(sed -n 's/^ *not counted: \([0-9]*\) stacks of 1 thread that each end at one return address in libc.so.6.*/\1/p' "$TMP/ts.txt")
	short=$(sed -n 's/^  \[unwound\] .* \([0-9]*\) ([0-9.]*%) of the [0-9]* with user frames stop short in libc.so.6$/\1/p' "$TMP/ts.txt")
	if [ -n "$locker" ] && [ "$locker" -ge 10 ] && [ "$skipped" = "$locker" ] && [ -n "$libc" ] &&
	   [ "$short" = $((libc - locker)) ]; then
		ok unwound_thread_start; echo "# locker's $locker stacks counted as started; $short of the main thread's stay short in libc.so.6"
	else fail unwound_thread_start "locker samples '$locker', not counted '$skipped', libc short '$libc', finding '$short'"; fi
fi
