#!/usr/bin/env bash
# viewer-findings-cpufreq-test.sh — the cpufreq finding (report --findings,
# --fail-on cpufreq) on real agent recordings of a real busy program: burn
# pinned to CPU 0 for 6 s, the agent polling its counter tracks at 20 Hz
# (every 50 ms asked) from PERFLENS_SYSFS_ROOT, a tree laid out as
# Documentation/admin-guide/pm/cpufreq.rst and the thermal sysfs-api say
# (policy0 of CPU 0 and policy1 of CPU 1: related_cpus, scaling_cur_freq,
# scaling_max_freq, cpuinfo_max_freq 1800000 kHz, scaling_governor;
# cpuN/cpufreq links to them; thermal_zone0 "cpu-thermal" with temp in
# m°C).  No machine here has cpufreq: this tree is the only one the rule
# was tested on (docs/cli.md says so).  A writer (python3, on CPU 1)
# rewrites the files while the agent records, timed from the moment the
# agent creates its capture (its session starting; a loaded machine may
# start python late): phase 1 at the maximum, phase 2 from 1.5 s to 3.5 s,
# phase 3 back at the maximum.  At each of its marks (and at 0.8 s and
# 4.8 s, inside the run) it logs CLOCK_MONOTONIC (the recording's clock)
# before and after its writes, then /proc/stat's cpu0 busy (neither idle
# nor iowait, as the agent's busy track counts) and total jiffies; the
# script reads the same before and after the agent.  A span's busy time is
# its wall time by the share of busy jiffies over it, as the agent's busy
# track weighs it (a loaded VM loses ticks: jiffies alone fall short of the
# wall time).  Oracles: those times and shares, and the values written.
# A poll period below is the longest gap between two polls (the agent's
# loop may poll later than asked, the more so on a loaded machine), which
# the finding states: it must equal the CSV's poll times and be under 0.5 s
# (a quarter of phase 2: beyond that the times would say little).
#   capped_thermal   phase 2: temp 90 °C, scaling_max_freq 900 MHz,
#                    scaling_cur_freq 900 MHz (written in that order, back
#                    in the reverse one).  The finding fires (and --fail-on
#                    cpufreq exits 1 with its sentence); it names the
#                    maximum (1800 MHz), the limit lowered to 900 MHz, the
#                    cause thermal with 90.0 °C while low and 45.0 °C
#                    outside (or more by as much as polls between the
#                    writer's writes may read 90 °C at the maximum: 45 °C
#                    times the writes' time and two poll periods over the
#                    time outside the stretch); its time below is CPU 0's busy time over
#                    phase 2 within two poll periods, 20 ms and the time
#                    the writes took; its one stretch starts at most a poll
#                    period (and 15 ms) before the phase's writes and ends
#                    at most that before the restoring ones; its busy time
#                    is at least CPU 0's over the inner window less two
#                    polls and 20 ms, and at most that over the whole
#                    recording plus two polls and 20 ms (shares come in
#                    ticks: an interval where burn starts or ends may count
#                    whole); its mean frequency while busy is 1800 − 900 ×
#                    (time below / busy time) MHz within 2 MHz, and its CPU
#                    0 row holds the same busy and low times; no finding
#                    for policy1 (CPU 1 idles at the maximum)
#   governor_low     phase 2: only scaling_cur_freq, at 1000 MHz: the cause
#                    named is the governor ("scaling_max_freq not lowered
#                    below 1440 MHz"), the time below as above, the mean
#                    1800 − 800 × (below / busy) MHz within 2 MHz, the zone
#                    at 45.0 °C both while low and outside
#   at_max_quiet     the tree at the maximum throughout: no cpufreq finding
#                    and --fail-on cpufreq exits 0, while report --counters
#                    shows the policy's tracks at 1800 MHz and CPU 0 busy
#                    (mean at least 90 %): the rule had what it judges
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-findings-cpufreq: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-cpufreq-XXXXXX)
WPID=
trap '[ -z "$WPID" ] || kill "$WPID" 2>/dev/null; pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="capped_thermal governor_low at_max_quiet"
pl_plan $ALL
for x in "$PERFLENS" "$AGENT" "$BURN"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
for x in python3 taskset; do command -v $x >/dev/null || pl_fail_all "$x missing (ci/deps.sh)"; done
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
POLL_MS=50
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
OTHER=
[ "$ncpu" -gt 1 ] && OTHER="taskset -c 1"

# mk_tree DIR: the sysfs tree at the maximum, 45 °C
mk_tree() {
	local S=$1/sys c
	for c in 0 1; do
		local P=$S/devices/system/cpu/cpufreq/policy$c
		mkdir -p "$P" "$S/devices/system/cpu/cpu$c"
		echo $c >"$P/related_cpus"; echo $c >"$P/affected_cpus"; echo schedutil >"$P/scaling_governor"
		echo 600000 >"$P/cpuinfo_min_freq"; echo 1800000 >"$P/cpuinfo_max_freq"
		echo 600000 >"$P/scaling_min_freq"; echo 1800000 >"$P/scaling_max_freq"
		echo 1800000 >"$P/scaling_cur_freq"
		ln -s ../cpufreq/policy$c "$S/devices/system/cpu/cpu$c/cpufreq"
	done
	local Z=$S/devices/virtual/thermal/thermal_zone0
	mkdir -p "$Z" "$S/class/thermal"
	echo cpu-thermal >"$Z/type"; echo 45000 >"$Z/temp"
	ln -s ../../devices/virtual/thermal/thermal_zone0 "$S/class/thermal/thermal_zone0"
}

cat >"$TMP/writer.py" <<'PY'
# writer.py ROOT MODE CAPTURE LOG READY: once CAPTURE exists (the agent
# creates it as its session starts), rewrites policy0 and thermal_zone0 on
# a schedule; logs, at each mark, CLOCK_MONOTONIC before and after its
# writes and then /proc/stat's cpu0 busy and total jiffies
import json, os, sys, time
root, mode, cap, out, ready = sys.argv[1:6]
P = root + '/sys/devices/system/cpu/cpufreq/policy0/'
Z = root + '/sys/devices/virtual/thermal/thermal_zone0/'
def w(path, v):
    with open(path, 'w') as f:
        f.write('%d\n' % v)
def stat0():
    for l in open('/proc/stat'):
        if l.startswith('cpu0 '):
            v = [int(x) for x in l.split()[1:9]]
            return [sum(v) - v[3] - v[4], sum(v)]
log = {}
def mark(name, writes=()):
    t0 = time.monotonic_ns()
    for path, v in writes:
        w(path, v)
    log[name] = [t0, time.monotonic_ns()] + stat0()
open(ready, 'w').close()
end = time.monotonic() + 60
while not os.path.exists(cap) and time.monotonic() < end:
    time.sleep(0.005)
start = time.monotonic()
def at(t):
    time.sleep(max(0.0, start + t - time.monotonic()))
at(0.8); mark('in0')
at(1.5)
if mode == 'thermal':
    mark('w1', [(Z + 'temp', 90000), (P + 'scaling_max_freq', 900000), (P + 'scaling_cur_freq', 900000)])
elif mode == 'governor':
    mark('w1', [(P + 'scaling_cur_freq', 1000000)])
else:
    mark('w1')
at(3.5)
if mode == 'quiet':
    mark('w2')
else:
    mark('w2', [(P + 'scaling_cur_freq', 1800000), (P + 'scaling_max_freq', 1800000), (Z + 'temp', 45000)])
at(4.8); mark('in1')
json.dump(log, open(out, 'w'))
PY
# /proc/stat's cpu0 now: CLOCK_MONOTONIC, busy and total jiffies
stat0() {
	python3 -c 'import time
for l in open("/proc/stat"):
    if l.startswith("cpu0 "):
        v = [int(x) for x in l.split()[1:9]]; print(time.monotonic_ns(), sum(v) - v[3] - v[4], sum(v))'
}

# record MODE: $TMP/MODE.plens with the writer's log $TMP/MODE.json and
# /proc/stat's cpu0 before and after the agent in $TMP/MODE.pre, .post
record() {
	local m=$1 rc i
	mk_tree "$TMP/$m"
	$OTHER python3 "$TMP/writer.py" "$TMP/$m" "$m" "$TMP/$m.plens" "$TMP/$m.json" "$TMP/$m.ready" &
	WPID=$!
	for i in $(seq 600); do [ -e "$TMP/$m.ready" ] && break; sleep 0.05; done
	stat0 >"$TMP/$m.pre"
	PERFLENS_SYSFS_ROOT=$TMP/$m "$AGENT" --output "$TMP/$m.plens" --tracks $((1000 / POLL_MS)) \
		-- taskset -c 0 "$BURN" 6 1 >"$TMP/$m.log" 2>&1
	rc=$?
	stat0 >"$TMP/$m.post"
	wait "$WPID"
	WPID=
	[ $rc = 0 ] || { echo "agent exit $rc: $(tail -n 2 "$TMP/$m.log" | tr '\n' ' ')"; return 1; }
	[ -s "$TMP/$m.json" ] || { echo "the writer wrote no log"; return 1; }
	"$PERFLENS" report --findings "$TMP/$m.plens" >"$TMP/$m.txt" 2>&1 ||
		{ echo "report --findings failed: $(tail -n 2 "$TMP/$m.txt")"; return 1; }
	"$PERFLENS" report --fail-on cpufreq "$TMP/$m.plens" >/dev/null 2>"$TMP/$m.fail"
	echo "fail-on exit $?" >"$TMP/$m.failrc"
	"$PERFLENS" report --counters "$TMP/$m.plens" >"$TMP/$m.counters" 2>&1
	"$PERFLENS" export --format counters-csv -o "$TMP/$m.csv" "$TMP/$m.plens" >/dev/null 2>&1 ||
		{ echo "export counters-csv failed"; return 1; }
	return 0
}

# check MODE: the finding against the writer's log (prints "ok …" or "bad …")
check() {
	python3 - "$TMP/$1.txt" "$TMP/$1.json" "$TMP/$1.pre" "$TMP/$1.post" "$TMP/$1.fail" "$TMP/$1.failrc" "$1" "$POLL_MS" "$TMP/$1.csv" <<'PY'
import csv, json, re, sys
txt, logf, pref, postf, failf, rcf, mode, poll, csvf = sys.argv[1:10]
poll = int(poll) / 1e3
lines = open(txt).read().split('\n')
log = json.load(open(logf))
pre = [int(x) for x in open(pref).read().split()]
post = [int(x) for x in open(postf).read().split()]
# a mark: [ns before its writes, ns after, busy jiffies, total jiffies]
log['pre'] = pre[:1] + pre
log['post'] = post[:1] + post
def busy_s(a, b):
    """CPU 0's busy time from mark a to mark b: the wall time (from the
    end of a's writes to the start of b's) by the busy share /proc/stat
    counted over it, as the agent's busy track weighs it"""
    A, B = log[a], log[b]
    share = (B[2] - A[2]) / (B[3] - A[3]) if B[3] > A[3] else 0
    return (B[0] - A[1]) / 1e9 * share
# how long the writes of a mark took: when a value changed is known to that
unsure = (log['w1'][1] - log['w1'][0] + log['w2'][1] - log['w2'][0]) / 1e9
bad = []
heads = [i for i, l in enumerate(lines) if l.startswith('  [cpufreq] ')]
if len(heads) != 1:
    print('bad %d cpufreq findings, want 1 (policy0 only): %s' % (len(heads), ' | '.join(lines[i] for i in heads)[:300]))
    sys.exit()
i = heads[0]
what = lines[i][len('  [cpufreq] '):]
body = []
for l in lines[i + 1:]:
    if not l.startswith('      '):
        break
    body.append(l.strip())
m = re.match(r'policy0 \(CPUs 0\) ran below 1440 MHz \(80% of cpuinfo_max_freq 1800 MHz\) for '
             r'([\d.]+) s of its ([\d.]+) s busy \(([\d.]+)%\): mean (\d+) MHz while busy '
             r'\(([\d.]+)% of the maximum\); likely cause: (.*)$', what)
if not m:
    print('bad the sentence: ' + what); sys.exit()
low, busy, share, mean = float(m.group(1)), float(m.group(2)), float(m.group(3)), int(m.group(4))
# the agent's loop may poll later than asked: the margins are the longest
# gap between two polls, which the finding states and the CSV's poll times
# of the policy's frequency track must show
times = sorted({int(r['time_ns']) for r in csv.DictReader(open(csvf))
                if r['track'] == 'policy0 frequency (cpus 0)'})
gap = max(b - a for a, b in zip(times, times[1:])) / 1e9 if len(times) > 1 else 0
g = [re.search(r'at most (\d+) ms between two polls here$', l) for l in body]
g = [x for x in g if x]
if not g or abs(int(g[0].group(1)) / 1e3 - gap) > 0.001:
    bad.append('poll gap stated %s, the CSV %.1f ms' % (g[0].group(1) if g else None, gap * 1e3))
if gap >= 0.5:
    bad.append('polls %.0f ms apart (asked every %.0f ms): too far apart to judge the times' % (gap * 1e3, poll * 1e3))
poll = max(poll, gap)
# between the writes of a mark a poll may read 90 °C at the maximum: the
# zone's mean outside the stretch rises by 45 °C over that share of it
st0 = [re.search(r'clock ([\d.]+) s to ([\d.]+) s;', l) for l in body if l.startswith('below 1440 MHz from')]
st0 = [x for x in st0 if x]
span = (times[-1] - times[0]) / 1e9 if len(times) > 1 else 0
out_t = span - sum(float(x.group(2)) - float(x.group(1)) for x in st0)
hot_outside = 45.0 + 45.0 * min(1.0, (unsure + 2 * gap) / out_t) if out_t > 0 else 90.0
cause = m.group(6)
ref_low = busy_s('w1', 'w2')
inner = busy_s('in0', 'in1')
outer = busy_s('pre', 'post')
said = 'below %.3f s (/proc/stat over phase 2: %.3f s), busy %.3f s (inner %.3f, whole %.3f), mean %d MHz, polls at most %.0f ms apart' % (
    low, ref_low, busy, inner, outer, mean, poll * 1e3)
if abs(low - ref_low) > 2 * poll + 0.02 + unsure:
    bad.append('time below %.3f s, /proc/stat %.3f s over phase 2' % (low, ref_low))
if busy < inner - 2 * poll - 0.02 or busy > outer + 2 * poll + 0.02:
    bad.append('busy %.3f s outside [%.3f, %.3f]' % (busy, inner - 2 * poll - 0.02, outer + 2 * poll + 0.02))
drop = 900 if mode == 'thermal' else 800
want = 1800 - drop * low / busy
if abs(mean - want) > 2:
    bad.append('mean %d MHz, want %.1f from the time below and busy' % (mean, want))
if abs(share - 100 * low / busy) > 0.1:
    bad.append('share %.1f%% vs %.1f%%' % (share, 100 * low / busy))
if mode == 'thermal':
    c = re.match(r'thermal throttling \(thermal cpu-thermal read 90\.0 °C, ([\d.]+) °C outside that '
                 r'time; scaling_max_freq lowered to 900 MHz\)$', cause)
    c = c and 45.0 <= float(c.group(1)) <= hot_outside
else:
    c = re.match(r'the governor \(scaling_max_freq not lowered below 1440 MHz\)$', cause)
if not c:
    bad.append('cause: ' + cause)
row = [l for l in body if re.match(r'^0\s', l)]
r = re.match(r'^0\s+([\d.]+) s\s+([\d.]+) s\s+([\d.]+)%\s+(\d+) MHz$', row[0]) if row else None
if not r or abs(float(r.group(1)) - busy) > 1e-9 or abs(float(r.group(2)) - low) > 1e-9 or int(r.group(4)) != mean:
    bad.append('CPU 0 row: %s' % (row[:1],))
st = [re.search(r'clock ([\d.]+) s to ([\d.]+) s;', l) for l in body if l.startswith('below 1440 MHz from')]
st = [s for s in st if s]
if len(st) != 1:
    bad.append('%d stretches, want 1' % len(st))
else:
    a, b = float(st[0].group(1)), float(st[0].group(2))
    # a: the poll before the first that read the low value, b: the last
    # poll that read it; each within a poll of the write, which lies in
    # its mark's [before, after]
    w1, w2 = [x / 1e9 for x in log['w1'][:2]], [x / 1e9 for x in log['w2'][:2]]
    said += ', stretch %.3f..%.3f s vs written %.3f..%.3f s' % (a, b, w1[1], w2[0])
    if not (w1[0] - poll - 0.015 <= a <= w1[1] + 0.015 and w2[0] - poll - 0.015 <= b <= w2[1] + 0.015):
        bad.append('stretch clock %.6f..%.6f s, written at %.6f..%.6f and %.6f..%.6f s' % (a, b, *w1, *w2))
lim = [l for l in body if l.startswith("scaling_max_freq (the policy's limit) read")]
want_lim = 'read 900 to 1800 MHz' if mode == 'thermal' else 'read 1800 to 1800 MHz'
if not lim or want_lim not in lim[0]:
    bad.append('limit line %s, want %r' % (lim[:1], want_lim))
zone = [re.match(r'thermal cpu-thermal: ([\d.]+) °C on average while below \(max ([\d.]+) °C\), '
                 r'([\d.]+) °C outside that time$', l) for l in body]
zone = [z for z in zone if z]
hot = 90.0 if mode == 'thermal' else 45.0
if (len(zone) != 1 or float(zone[0].group(1)) != hot or float(zone[0].group(2)) != hot or
        not 45.0 <= float(zone[0].group(3)) <= (hot_outside if mode == 'thermal' else 45.0)):
    bad.append('zone line %s' % [l for l in body if l.startswith('thermal ')][:1])
fail = open(failf).read()
if open(rcf).read().strip() != 'fail-on exit 1' or ('perflens: --fail-on cpufreq: ' + what) not in fail:
    bad.append('--fail-on cpufreq: %s %s' % (open(rcf).read().strip(), fail[:200]))
print(('bad ' + '; '.join(bad)) if bad else 'ok ' + said)
PY
}

for m in thermal governor; do
	case $m in thermal) name=capped_thermal ;; *) name=governor_low ;; esac
	if why=$(record $m); then
		r=$(check $m)
		echo "# $m: $r"
		case $r in ok*) ok $name ;; *) fail $name "${r#bad }"; sed -n '/\[cpufreq\]/,/see:/p' "$TMP/$m.txt" | sed 's/^/# /' ;; esac
	else
		fail $name "$why"
	fi
done

if why=$(record quiet); then
	r=$(python3 - "$TMP/quiet.txt" "$TMP/quiet.failrc" "$TMP/quiet.counters" <<'PY'
import re, sys
bad = []
if any(l.startswith('  [cpufreq]') for l in open(sys.argv[1])):
    bad.append('a cpufreq finding at the maximum')
if open(sys.argv[2]).read().strip() != 'fail-on exit 0':
    bad.append('--fail-on cpufreq: ' + open(sys.argv[2]).read().strip())
rows = {}
for l in open(sys.argv[3]):
    m = re.match(r'^\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*?)  \(', l)
    if m:
        rows[m.group(6)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)), m.group(5))
for name in ('policy0 frequency (cpus 0)', 'policy0 frequency limit (cpus 0)',
             'policy0 hardware max frequency (cpus 0)'):
    r = rows.get(name)
    if not r or r[0] != 1800.0 or r[2] != 1800.0 or r[3] != 'MHz':
        bad.append('%s: min, mean, max, unit %s' % (name, r))
busy = rows.get('cpu0 busy')
if not busy or busy[1] < 90:
    bad.append('cpu0 busy %s: the rule had nothing to judge' % (busy,))
print(('bad ' + '; '.join(bad)) if bad else 'ok no finding; cpu0 busy mean %.1f%%' % busy[1])
PY
)
	echo "# quiet: $r"
	case $r in ok*) ok at_max_quiet ;; *) fail at_max_quiet "${r#bad }" ;; esac
else
	fail at_max_quiet "$why"
fi
