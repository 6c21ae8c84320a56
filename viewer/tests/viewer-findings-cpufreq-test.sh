#!/usr/bin/env bash
# viewer-findings-cpufreq-test.sh — the cpufreq finding (report --findings,
# --fail-on cpufreq) on real agent recordings of a real busy program: burn
# pinned to CPU 0 for 4.5 s, the agent polling its counter tracks at 20 Hz
# (a 50 ms poll period) from PERFLENS_SYSFS_ROOT, a tree laid out as
# Documentation/admin-guide/pm/cpufreq.rst and the thermal sysfs-api say
# (policy0 of CPU 0 and policy1 of CPU 1: related_cpus, scaling_cur_freq,
# scaling_max_freq, cpuinfo_max_freq 1800000 kHz, scaling_governor;
# cpuN/cpufreq links to them; thermal_zone0 "cpu-thermal" with temp in
# m°C).  No machine here has cpufreq: this tree is the only one the rule
# was tested on (docs/cli.md says so).  A writer (python3, on CPU 1) rewrites
# the files while the agent records: phase 1 at the maximum, phase 2 from
# 1.2 s to 2.7 s after it starts, phase 3 back at the maximum; it logs
# CLOCK_MONOTONIC (the recording's clock) right after each phase's writes
# and /proc/stat's cpu0 busy jiffies (neither idle nor iowait, as the
# agent's busy track counts) there and at 0.6 s and 3.5 s, inside the run.
# Oracles: those times and jiffies, and the values the writer wrote.
#   capped_thermal   phase 2: temp 90 °C, scaling_max_freq 900 MHz,
#                    scaling_cur_freq 900 MHz (written in that order, back
#                    in the reverse one).  The finding fires (and --fail-on
#                    cpufreq exits 1 with its sentence); it names the
#                    maximum (1800 MHz), the limit lowered to 900 MHz, the
#                    cause thermal with 90.0 °C while low and 45.0 °C
#                    outside (up to 47: a poll between two of the writer's
#                    writes, microseconds apart, may read 90 °C at the
#                    maximum); its time below is /proc/stat's busy time of
#                    CPU 0 over phase 2 within two poll periods and 20 ms
#                    (the jiffies' granularity); its one stretch starts and
#                    ends at the writer's two times within one poll period
#                    and 15 ms (a poll period: the longest gap between two
#                    polls, which the finding states, equal to the CSV's
#                    poll times, and at most three times the 50 ms asked); its busy time is at least /proc/stat's over
#                    the inner window (0.6 s to 3.5 s) less two polls and 20
#                    ms and at most that over the whole recording plus 20
#                    ms; its mean frequency while busy is 1800 − 900 × (time
#                    below / busy time) MHz within 2 MHz, and its CPU 0 row
#                    holds the same busy and low times; no finding for
#                    policy1 (CPU 1 idles at the maximum)
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
# writer.py ROOT MODE LOG: rewrites policy0 and thermal_zone0 on a schedule
import json, os, sys, time
root, mode, out = sys.argv[1:4]
P = root + '/sys/devices/system/cpu/cpufreq/policy0/'
Z = root + '/sys/devices/virtual/thermal/thermal_zone0/'
def w(path, v):
    with open(path, 'w') as f:
        f.write('%d\n' % v)
def busy0():
    for l in open('/proc/stat'):
        if l.startswith('cpu0 '):
            v = [int(x) for x in l.split()[1:9]]
            return sum(v) - v[3] - v[4]
start = time.monotonic()
def at(t):
    time.sleep(max(0.0, start + t - time.monotonic()))
log = {'hz': os.sysconf('SC_CLK_TCK'), 'pre': [time.monotonic_ns(), busy0()]}
at(0.6); log['in0'] = [time.monotonic_ns(), busy0()]
at(1.2)
if mode == 'thermal':
    w(Z + 'temp', 90000); w(P + 'scaling_max_freq', 900000); w(P + 'scaling_cur_freq', 900000)
elif mode == 'governor':
    w(P + 'scaling_cur_freq', 1000000)
log['w1'] = [time.monotonic_ns(), busy0()]
at(2.7)
if mode != 'quiet':
    w(P + 'scaling_cur_freq', 1800000); w(P + 'scaling_max_freq', 1800000); w(Z + 'temp', 45000)
log['w2'] = [time.monotonic_ns(), busy0()]
at(3.5); log['in1'] = [time.monotonic_ns(), busy0()]
json.dump(log, open(out, 'w'))
PY

# record MODE: $TMP/MODE.plens with the writer's log $TMP/MODE.json and
# /proc/stat's cpu0 busy after the agent in $TMP/MODE.post
record() {
	local m=$1 rc
	mk_tree "$TMP/$m"
	$OTHER python3 "$TMP/writer.py" "$TMP/$m" "$m" "$TMP/$m.json" &
	WPID=$!
	PERFLENS_SYSFS_ROOT=$TMP/$m "$AGENT" --output "$TMP/$m.plens" --tracks $((1000 / POLL_MS)) \
		-- taskset -c 0 "$BURN" 4.5 1 >"$TMP/$m.log" 2>&1
	rc=$?
	python3 -c 'import time
for l in open("/proc/stat"):
    if l.startswith("cpu0 "):
        v = [int(x) for x in l.split()[1:9]]; print(time.monotonic_ns(), sum(v) - v[3] - v[4])' >"$TMP/$m.post"
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
	python3 - "$TMP/$1.txt" "$TMP/$1.json" "$TMP/$1.post" "$TMP/$1.fail" "$TMP/$1.failrc" "$1" "$POLL_MS" "$TMP/$1.csv" <<'PY'
import csv, json, re, sys
txt, logf, postf, failf, rcf, mode, poll, csvf = sys.argv[1:9]
poll = int(poll) / 1e3
lines = open(txt).read().split('\n')
log = json.load(open(logf))
hz = log['hz']
post = [int(x) for x in open(postf).read().split()]
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
if gap > 3 * poll:
    bad.append('polls %.0f ms apart, asked every %.0f ms' % (gap * 1e3, poll * 1e3))
poll = max(poll, gap)
cause = m.group(6)
ref_low = (log['w2'][1] - log['w1'][1]) / hz
inner = (log['in1'][1] - log['in0'][1]) / hz
outer = (post[1] - log['pre'][1]) / hz
said = 'below %.3f s (/proc/stat over phase 2: %.3f s), busy %.3f s (inner %.3f, whole %.3f), mean %d MHz, polls at most %.0f ms apart' % (
    low, ref_low, busy, inner, outer, mean, poll * 1e3)
if abs(low - ref_low) > 2 * poll + 0.02:
    bad.append('time below %.3f s, /proc/stat %.3f s over phase 2' % (low, ref_low))
if busy < inner - 2 * poll - 0.02 or busy > outer + 0.02:
    bad.append('busy %.3f s outside [%.3f, %.3f]' % (busy, inner - 2 * poll - 0.02, outer + 0.02))
drop = 900 if mode == 'thermal' else 800
want = 1800 - drop * low / busy
if abs(mean - want) > 2:
    bad.append('mean %d MHz, want %.1f from the time below and busy' % (mean, want))
if abs(share - 100 * low / busy) > 0.1:
    bad.append('share %.1f%% vs %.1f%%' % (share, 100 * low / busy))
if mode == 'thermal':
    c = re.match(r'thermal throttling \(thermal cpu-thermal read 90\.0 °C, ([\d.]+) °C outside that '
                 r'time; scaling_max_freq lowered to 900 MHz\)$', cause)
    c = c and 45.0 <= float(c.group(1)) <= 47.0
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
    w1, w2 = log['w1'][0] / 1e9, log['w2'][0] / 1e9
    said += ', stretch %.3f..%.3f s vs written %.3f..%.3f s' % (a, b, w1, w2)
    if abs(a - w1) > poll + 0.015 or abs(b - w2) > poll + 0.015:
        bad.append('stretch clock %.6f..%.6f s, written at %.6f..%.6f s' % (a, b, w1, w2))
lim = [l for l in body if l.startswith("scaling_max_freq (the policy's limit) read")]
want_lim = 'read 900 to 1800 MHz' if mode == 'thermal' else 'read 1800 to 1800 MHz'
if not lim or want_lim not in lim[0]:
    bad.append('limit line %s, want %r' % (lim[:1], want_lim))
zone = [re.match(r'thermal cpu-thermal: ([\d.]+) °C on average while below \(max ([\d.]+) °C\), '
                 r'([\d.]+) °C outside that time$', l) for l in body]
zone = [z for z in zone if z]
hot = 90.0 if mode == 'thermal' else 45.0
if (len(zone) != 1 or float(zone[0].group(1)) != hot or float(zone[0].group(2)) != hot or
        not 45.0 <= float(zone[0].group(3)) <= (47.0 if mode == 'thermal' else 45.0)):
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
