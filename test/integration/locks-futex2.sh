#!/usr/bin/env bash
# locks-futex2.sh — lock waits through the newer futex calls on the real
# kernel, with test/workloads/futex2: one thread holds two words 5 ms of
# every 10 and releases them with futex_wake (454), one waiter waits on
# both in futex_waitv (449, which returns the index of the word that woke
# it), another on the first in futex_wait (455); each sums its own time in
# those calls with clock_gettime (its EXPECT file).  The agent records the
# tracepoints `perflens record --locks` asks for on this kernel (futex(2)'s,
# futex_waitv's, futex_wait's, futex_wake's, sched_waking), once under
# `strace -ff -T` (strace 6.1 knows futex_waitv by name and the two 6.7
# calls only as syscall_0x1c6/0x1c7: traced by a regex on those names),
# once live through `perflens record --locks` without strace.
#   futex2_words_found      report --locks lists word_a and word_b (the
#       addresses the program printed) in its process, named by their
#       data symbols.
#   futex2_waits_match_strace  on the strace run, the futex_waitv waiter's
#       wait on each word (its calls that returned that word's index) and
#       the futex_wait waiter's on word_a are never above the sums of
#       strace's -T times of the same calls by more than 5 % (strace's
#       window holds the kernel's entry to exit), and lie below them by no
#       more than 5 % plus strace's delay at each call, as locks.sh checks,
#       where that delay can be measured on the waiter's own thread: the
#       mean of its 5 or more calls that did not sleep (-EAGAIN).  One wake
#       releases both waiters and strace sees their exit stops one after
#       the other, so a waiter's delay is its own; a waiter with fewer such
#       calls has no measure of it (the wakes' delay, all strace could give,
#       read it 18-20 % high in 2 of 5 loaded runs), and its lower side is
#       futex2_waits_match_program's, against the program's own clock.
#   futex2_waker            "Held by" of word_a: the first row is the holder
#       thread, its rows (it wakes word_a from two call sites) charged at
#       least 75 % of the time.
#   futex2_record_live      perflens record --locks --command … through an
#       agent on loopback: both words found.
#   futex2_waits_match_program  on that run, each wait above within 5 % of
#       what the program measured around its calls, and never more.
# PL_AGENT: the agent under test (else the build's).
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} W=$B/workloads/futex2
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok locks-futex2: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/pl-futex2-XXXXXX)
APID=
trap '[ -z "$APID" ] || { kill "$APID" 2>/dev/null; wait "$APID" 2>/dev/null; }; pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="futex2_words_found futex2_waits_match_strace futex2_waker futex2_record_live futex2_waits_match_program"
pl_plan $ALL
for x in "$PERFLENS" "$AGENT" "$W"; do
	[ -x "$x" ] || { for n in $ALL; do fail "$n" "$x not built (make)"; done; exit 1; }
done
for c in strace python3; do
	command -v $c >/dev/null || { for n in $ALL; do fail "$n" "$c missing (ci/deps.sh)"; done; exit 1; }
done
if why=$(pl_perf_refused); then
	for n in $ALL; do skip "$n" "$why"; done
	exit 0
fi
tp=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/events/syscalls/sys_enter_futex_wait/format" ] && tp=$d && break
done
if [ -z "$tp" ]; then
	for n in $ALL; do skip "$n" "[no-kernel-feature:syscalls:sys_enter_futex_wait] no readable tracefs format for it (Linux 6.7+, CONFIG_FTRACE_SYSCALLS)"; done
	exit 0
fi
EVENTS=
for e in futex futex_waitv futex_wait; do
	EVENTS="$EVENTS --event syscalls:sys_enter_$e --event syscalls:sys_exit_$e"
done
EVENTS="$EVENTS --event syscalls:sys_enter_futex_wake --event sched:sched_waking"

check() { # REPORT EXPECT [STRACE_PREFIX]
	python3 - "$@" <<'PY'
import glob, re, sys
rep = open(sys.argv[1]).read().split('\n')
exp = {}
for l in open(sys.argv[2]):
    f = l.split()
    if f:
        exp[f[0]] = f[1:]
pid, holder = exp['pid'][0], exp['holder'][0]
a, b = exp['word_a'][0].lower(), exp['word_b'][0].lower()
wv, wt = exp['waitv'][0], exp['wait'][0]
# the program's own: (tid, word) -> ns
prog = {(wv, a): int(exp['waitv'][1]), (wv, b): int(exp['waitv'][2]), (wt, a): int(exp['wait'][1])}
rows, on = [], False
for l in rep:
    if l.startswith('By lock'):
        on = True
        continue
    if on and not l.strip():
        break
    if on and l.startswith('  ') and not l.startswith('  Lock'):
        rows.append(l)
out = []
def row(addr, name):
    m = [l for l in rows if ('(%s)' % addr) in l]
    return len(m) == 1 and m[0].split()[0] == name and m[0].split()[2] == pid, m
oka, ma = row(a, 'word_a')
okb, mb = row(b, 'word_b')
out.append(('ok' if oka and okb else 'bad') + ' words_found: %s; %s (%d locks listed)' % (ma[0].strip() if ma else 'no row of %s' % a, mb[0].strip() if mb else 'no row of %s' % b, len(rows)))
# per word: the waiters' totals and the held-by rows
ours, held = {}, {}
for addr in (a, b):
    sec, on = [], False
    for l in rep:
        if l.startswith('Lock '):
            on = ('(%s)' % addr) in l
        if on:
            sec.append(l)
    part = None
    held[addr] = []
    for l in sec:
        if l.startswith('  Waiters:'):
            part = 'w'; continue
        if l.startswith('  Held by'):
            part = 'h'; continue
        if l.startswith('  Waits by'):
            part = None; continue
        f = l.split()
        if part == 'w' and f and f[0].isdigit():
            ours[(f[0], addr)] = float(f[-1]) * 1e6
        if part == 'h' and f and re.match(r'^[0-9.]+$', f[0]):
            held[addr].append(l)
def name(k):
    return '%s %s on %s' % ('futex_waitv' if k[0] == wv else 'futex_wait', k[0], 'word_a' if k[1] == a else 'word_b')
bad = ['%s: ours %.3f ms, program %.3f ms' % (name(k), ours.get(k, 0) / 1e6, ns / 1e6) for k, ns in prog.items()
       if not (ns > 0 and abs(ours.get(k, 0) - ns) <= 0.05 * ns and ours.get(k, 0) <= ns * 1.0001 + 20000)]
fig = ', '.join('%s ours %.3f ms program %.3f ms (%+.2f%%)' % (name(k), ours.get(k, 0) / 1e6, ns / 1e6, 100.0 * (ours.get(k, 0) - ns) / ns if ns else 0) for k, ns in prog.items())
out.append(('ok' if not bad else 'bad') + ' waits_match_program: ' + ('; '.join(bad) if bad else fig))
if len(sys.argv) > 3:
    st = {k: 0.0 for k in prog}
    calls = {k: 0 for k in prog}
    nosleep, own = [], {}
    for path in glob.glob('%s.*' % sys.argv[3]):
        t = path.rsplit('.', 1)[1]
        for l in open(path):
            l = l.strip()
            m = re.match(r'futex_waitv\(\[\{val=[^,]*, uaddr=(0x[0-9a-f]+)[^}]*\}, \{val=[^,]*, uaddr=(0x[0-9a-f]+).*\) += (-?[0-9]+)[^<]*<([0-9.]+)>$', l)
            if m and t == wv:
                r = int(m.group(3))
                if r == -1 and 'EAGAIN' in l:
                    nosleep.append(float(m.group(4)) * 1e9)
                    own.setdefault(t, []).append(nosleep[-1])
                if r in (0, 1):
                    k = (t, m.group(1 + r))
                    if k in st:
                        st[k] += float(m.group(4)) * 1e9
                        calls[k] += 1
                continue
            m = re.match(r'syscall_0x1c([67])\((0x[0-9a-f]+),.*\) += (-?[0-9]+)[^<]*<([0-9.]+)>$', l)
            if not m:
                continue
            ns = float(m.group(4)) * 1e9
            if m.group(1) == '6':
                nosleep.append(ns)
            elif (t, m.group(2)) in st:
                st[(t, m.group(2))] += ns
                calls[(t, m.group(2))] += 1
                if m.group(3) == '-1' and 'EAGAIN' in l:
                    nosleep.append(ns)
                    own.setdefault(t, []).append(ns)
    # strace's delay at a thread's calls: the mean of its own calls that did
    # not sleep (strace sees the threads woken by one wake one after the
    # other), else of all of them
    delay = sum(nosleep) / len(nosleep) if len(nosleep) >= 5 else 0.0
    # a thread's own delay, where it made 5 or more calls that did not sleep
    at = {t: sum(v) / len(v) for t, v in own.items() if len(v) >= 5}
    def below_ok(k, s):
        return k[0] not in at or ours.get(k, 0) >= 0.95 * s - calls[k] * at[k[0]]
    bad = ['%s: ours %.3f ms, strace %.3f ms (%d calls, strace\'s delay %s)' % (name(k), ours.get(k, 0) / 1e6, s / 1e6, calls[k], ('%.3f ms a call' % (at[k[0]] / 1e6)) if k[0] in at else 'not measured on its thread')
           for k, s in st.items() if not (s > 0 and ours.get(k, 0) <= 1.05 * s and below_ok(k, s))]
    fig = ', '.join('%s ours %.3f ms strace %.3f ms (%+.2f%%, %d calls)' % (name(k), ours.get(k, 0) / 1e6, s / 1e6, 100.0 * (ours.get(k, 0) - s) / s if s else 0, calls[k]) for k, s in st.items())
    fig += '; strace\'s delay %.3f ms a call over %d calls that did not sleep; on the waiters\' own threads: %s' % (delay / 1e6, len(nosleep), ', '.join('thread %s %.3f ms' % (t, d / 1e6) for t, d in at.items()) or 'none measured (their lower side is the program\'s clock)')
    out.append(('ok' if not bad else 'bad') + ' waits_match_strace: ' + ('; '.join(bad) if bad else fig))
# the holder wakes word_a from two call sites: its rows summed
h = held[a]
total = sum(float(l.split()[0]) for l in h)
mine = sum(float(l.split()[0]) for l in h if l.split()[2] == holder)
ok_h = bool(h) and h[0].split()[2] == holder and mine >= 0.75 * total
out.append(('ok' if ok_h else 'bad') + ' waker: the holder %s charged %.3f ms of %.3f (%.1f %%) in %d rows; first: %s' % (holder, mine / 1, total, 100.0 * mine / total if total else 0, len(h), h[0].strip() if h else 'none'))
print('\n'.join(out))
PY
}
verdict() { # NAME KEY RESULTS
	local line
	line=$(echo "$3" | grep " $2: ")
	case $line in
	ok*) ok "$1"; echo "# ${line#ok }" ;;
	*) fail "$1" "${line#bad }" ;;
	esac
}

CAP=$TMP/f.plens
if ! ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -ff -T \
	-e 'trace=/^(futex_waitv|syscall_0x1c[67])$' -o "$TMP/strace" -- \
	"$AGENT" --output "$CAP" --callgraph fp $EVENTS -- "$W" "$TMP/exp" 100 >"$TMP/f.log" 2>&1; then
	for n in futex2_words_found futex2_waits_match_strace futex2_waker; do
		fail "$n" "the agent or the program failed: $(tail -2 "$TMP/f.log" | tr '\n' ' ')"
	done
else
	"$PERFLENS" report --locks "$CAP" >"$TMP/f.txt" 2>&1
	res=$(check "$TMP/f.txt" "$TMP/exp" "$TMP/strace")
	verdict futex2_words_found words_found "$res"
	verdict futex2_waits_match_strace waits_match_strace "$res"
	verdict futex2_waker waker "$res"
	echo "# under strace (not asserted): $(echo "$res" | grep ' waits_match_program: ' | cut -d' ' -f3-)"
fi

# ─── perflens record --locks, live through an agent on loopback ─────────
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$AGENT" --listen --bind 127.0.0.1 --port "$port" --token futex2-token >"$TMP/a.log" 2>&1 &
APID=$!
up=
for _ in $(seq 100); do
	(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && { up=1; break; }
	sleep 0.05
done
if [ -z "$up" ]; then
	fail futex2_record_live "the agent did not listen on $port: $(tail -2 "$TMP/a.log" | tr '\n' ' ')"
	fail futex2_waits_match_program "no live recording"
elif ! timeout 60 "$PERFLENS" record 127.0.0.1:"$port" --token futex2-token --callgraph fp --quiet \
	--locks --command "$W $TMP/rexp 100" -o "$TMP/r.plens" >"$TMP/r.log" 2>&1; then
	fail futex2_record_live "perflens record failed: $(tail -3 "$TMP/r.log" | tr '\n' ' ')"
	fail futex2_waits_match_program "no live recording"
else
	"$PERFLENS" report --locks "$TMP/r.plens" >"$TMP/r.txt" 2>&1
	res=$(check "$TMP/r.txt" "$TMP/rexp")
	verdict futex2_record_live words_found "$res"
	verdict futex2_waits_match_program waits_match_program "$res"
fi
