#!/usr/bin/env bash
# counter-tracks.sh — counter tracks (agent/counters.h, msg.h TRACK_*)
# end to end: the agent polls, `perflens report --counters` and `export
# --format counters-csv` read the capture.  Oracles: the program's own
# /proc/self/statm, /proc/stat read by this script, and files whose values
# this script writes.
#   rss_matches_program   test/workloads/rss grows by 4 steps of 24 MiB,
#       holding each 400 ms, and prints what its statm reads at each step
#       and at the end of each hold; the agent polls at 20 Hz.  Every RSS
#       value the agent read inside a hold window is within 256 KiB of what
#       the program read there (a few pages of printing), each window has
#       at least 2 such values, and report --counters' max is within 256
#       KiB of the program's last reading, in MiB.
#   busy_matches_proc_stat  burn pinned to the last CPU runs while the agent
#       records `-- sleep 3` for --duration 2 at 10 Hz; this script reads
#       /proc/stat just before the agent starts and just after it ends.  Per
#       CPU, report --counters' mean busy share (time-weighted) is within 10
#       points of /proc/stat's share over that window on the burned CPU
#       (which both see at 90 % or more) and within 20 points on the others
#       (the window holds the agent's own start and end, and the machine's
#       other work comes and goes).
#   sysfs_fixture_values  a tree laid out as Documentation/admin-guide/pm/
#       cpufreq.rst, the thermal sysfs-api and hwmon sysfs-interface.rst say
#       (policy0 with scaling_cur_freq in kHz and related_cpus, cpu0/cpufreq
#       a link to it, cpu0/cpuidle/state0..1 with name and time in µs,
#       class/thermal/thermal_zone0 → devices/virtual/thermal with type and
#       temp in m°C, class/hwmon/hwmon0 → its device with name, power1_input
#       µW + power1_label, curr1_input mA, in0_input mV, temp1_input m°C),
#       PERFLENS_SYSFS_ROOT pointing at it; the values are changed half way
#       through the run.  report --counters shows each track with both
#       values as min and max in the right unit (1200/1800 MHz, 45/71.5 °C,
#       1.5/2.25 W, 0.25/0.5 A, 0.9/1.1 V, 38/52 °C), the sysfs rows marked
#       "not seen on hardware", and the CSV has every first value before
#       every second one.
#   tracks_off            --tracks 0: no track in the capture, and the
#       report says there are none.
# PL_AGENT: the agent under test (else the build's).
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} RSS=$B/workloads/rss BURN=$B/workloads/burn
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok counter-tracks: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/pl-tracks-XXXXXX)
BPID=
trap '[ -z "$BPID" ] || { kill "$BPID" 2>/dev/null; wait "$BPID" 2>/dev/null; }; pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
ALL="rss_matches_program busy_matches_proc_stat sysfs_fixture_values tracks_off"
pl_plan $ALL
for x in "$PERFLENS" "$AGENT" "$RSS" "$BURN"; do
	[ -x "$x" ] || { for n in $ALL; do fail "$n" "$x not built (make)"; done; exit 1; }
done
command -v python3 >/dev/null || { for n in $ALL; do fail "$n" "python3 missing (ci/deps.sh)"; done; exit 1; }
if why=$(pl_perf_refused); then
	for n in $ALL; do skip "$n" "$why"; done
	exit 0
fi

# ─── RSS against the program's own statm ──────────────────────────────
if "$AGENT" --output "$TMP/rss.plens" --tracks 20 -- "$RSS" 4 24 400 >"$TMP/rss.log" 2>"$TMP/rss.err" &&
	"$PERFLENS" report --counters "$TMP/rss.plens" >"$TMP/rss.rep" 2>&1 &&
	"$PERFLENS" export --format counters-csv -o "$TMP/rss.csv" "$TMP/rss.plens" 2>>"$TMP/rss.rep"; then
	r=$(python3 - "$TMP/rss.log" "$TMP/rss.csv" "$TMP/rss.rep" <<'PY'
import csv, re, sys
log = [l.split() for l in open(sys.argv[1]) if l.split()[:1] in (['step'], ['held'])]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r['kind'] == 'rss']
if not rows:
    print('bad no rss rows in the CSV'); sys.exit()
margin = 256 * 1024
bad = []
for i in range(0, len(log) - 1, 2):
    s, h = log[i], log[i + 1]
    t0, t1, r0, r1 = int(s[2]), int(h[2]), int(s[3]), int(h[3])
    inside = [float(r['value']) for r in rows if t0 < int(r['time_ns']) < t1]
    if len(inside) < 2:
        bad.append('step %s: %d values in its %.0f ms hold' % (s[1], len(inside), (t1 - t0) / 1e6))
    for v in inside:
        if abs(v - r0) > margin and abs(v - r1) > margin:
            bad.append('step %s: agent %.0f vs program %d..%d' % (s[1], v, r0, r1))
last = int(log[-1][3])
m = [l for l in open(sys.argv[3]) if re.search(r'\brss \d+\b', l)]
if not m:
    bad.append('no rss row in report --counters')
else:
    f = m[0].split()
    if f[4] != 'MiB' or abs(float(f[3]) * 1048576 - last) > margin:
        bad.append('report max %s %s vs program %.3f MiB' % (f[3], f[4], last / 1048576))
print(('bad ' + '; '.join(bad[:4])) if bad else 'ok %d values, max %.1f MiB' % (len(rows), last / 1048576))
PY
)
	echo "# rss: $r"
	case $r in ok*) ok rss_matches_program ;; *) fail rss_matches_program "${r#bad }" ;; esac
else
	fail rss_matches_program "agent or perflens failed: $(tail -n 3 "$TMP/rss.err" "$TMP/rss.rep" 2>/dev/null | tr '\n' ' ')"
fi

# ─── per-CPU busy share against /proc/stat ────────────────────────────
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
last=$((ncpu - 1))
taskset -c "$last" "$BURN" 8 2 >/dev/null 2>&1 &
BPID=$!
sleep 0.5
grep '^cpu[0-9]' /proc/stat >"$TMP/stat0"
"$AGENT" --output "$TMP/busy.plens" --tracks 10 --duration 2 -- sleep 3 2>"$TMP/busy.err"
arc=$?
grep '^cpu[0-9]' /proc/stat >"$TMP/stat1"
kill "$BPID" 2>/dev/null
wait "$BPID" 2>/dev/null
BPID=
if [ $arc -eq 0 ] && "$PERFLENS" report --counters "$TMP/busy.plens" >"$TMP/busy.rep" 2>&1; then
	r=$(python3 - "$TMP/stat0" "$TMP/stat1" "$TMP/busy.rep" "$last" <<'PY'
import re, sys
def rows(p):
    out = {}
    for l in open(p):
        f = l.split()
        v = [int(x) for x in f[1:9]]
        out[int(f[0][3:])] = (sum(v) - v[3] - v[4], sum(v))
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
burned = int(sys.argv[4])
rep = {}
for l in open(sys.argv[3]):
    m = re.search(r'^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+%\s+cpu(\d+) busy', l)
    if m:
        rep[int(m.group(5))] = float(m.group(3))
bad, said = [], []
for c in sorted(a):
    db, dt = b[c][0] - a[c][0], b[c][1] - a[c][1]
    want = 100.0 * db / dt if dt else 0
    if c not in rep:
        bad.append('cpu%d: no track' % c); continue
    lim = 10 if c == burned else 20
    said.append('cpu%d %.1f%% vs /proc/stat %.1f%%' % (c, rep[c], want))
    if abs(rep[c] - want) > lim:
        bad.append('cpu%d: track mean %.1f%% vs /proc/stat %.1f%% (limit %d points)' % (c, rep[c], want, lim))
    if c == burned and (rep[c] < 90 or want < 90):
        bad.append('cpu%d burned but %.1f%% / %.1f%%' % (c, rep[c], want))
print(('bad ' + '; '.join(bad)) if bad else 'ok ' + ', '.join(said))
PY
)
	echo "# busy: $r"
	case $r in ok*) ok busy_matches_proc_stat ;; *) fail busy_matches_proc_stat "${r#bad }" ;; esac
else
	fail busy_matches_proc_stat "agent (exit $arc) or report failed: $(tail -n 3 "$TMP/busy.err" "$TMP/busy.rep" 2>/dev/null | tr '\n' ' ')"
fi

# ─── a sysfs tree as the kernel documents it ──────────────────────────
S=$TMP/root/sys
mkdir -p "$S/devices/system/cpu/cpufreq/policy0" "$S/devices/system/cpu/cpu0/cpuidle/state0" \
	"$S/devices/system/cpu/cpu0/cpuidle/state1" "$S/devices/virtual/thermal/thermal_zone0" \
	"$S/devices/platform/soc/ina226/hwmon/hwmon0" "$S/class/thermal" "$S/class/hwmon"
P=$S/devices/system/cpu/cpufreq/policy0
echo 0 >"$P/related_cpus"; echo 0 >"$P/affected_cpus"; echo schedutil >"$P/scaling_governor"
echo 600000 >"$P/cpuinfo_min_freq"; echo 1800000 >"$P/cpuinfo_max_freq"
ln -s ../cpufreq/policy0 "$S/devices/system/cpu/cpu0/cpufreq"
for k in 0 1; do
	I=$S/devices/system/cpu/cpu0/cpuidle/state$k
	echo "$([ $k = 0 ] && echo POLL || echo WFI)" >"$I/name"; echo 0 >"$I/time"; echo 0 >"$I/usage"
done
Z=$S/devices/virtual/thermal/thermal_zone0
echo cpu-thermal >"$Z/type"
ln -s ../../devices/virtual/thermal/thermal_zone0 "$S/class/thermal/thermal_zone0"
H=$S/devices/platform/soc/ina226/hwmon/hwmon0
echo ina226 >"$H/name"; echo VDD_CPU >"$H/power1_label"; echo vbus >"$H/in0_label"
ln -s ../../devices/platform/soc/ina226/hwmon/hwmon0 "$S/class/hwmon/hwmon0"
phase() { # FREQ_KHZ TEMP_MC POWER_UW CURR_MA IN_MV HWTEMP_MC
	echo "$1" >"$P/scaling_cur_freq"; echo "$1" >"$P/cpuinfo_cur_freq"; echo "$2" >"$Z/temp"
	echo "$3" >"$H/power1_input"; echo "$4" >"$H/curr1_input"; echo "$5" >"$H/in0_input"
	echo "$6" >"$H/temp1_input"
}
phase 1200000 45000 1500000 250 900 38000
cat >"$TMP/change.sh" <<EOF
sleep 0.8
echo 1800000 >"$P/scaling_cur_freq"; echo 1800000 >"$P/cpuinfo_cur_freq"; echo 71500 >"$Z/temp"
echo 2250000 >"$H/power1_input"; echo 500 >"$H/curr1_input"; echo 1100 >"$H/in0_input"
echo 52000 >"$H/temp1_input"; echo 400000 >"$S/devices/system/cpu/cpu0/cpuidle/state1/time"
sleep 0.8
EOF
if PERFLENS_SYSFS_ROOT=$TMP/root "$AGENT" --output "$TMP/fx.plens" --tracks 20 -- sh "$TMP/change.sh" 2>"$TMP/fx.err" &&
	"$PERFLENS" report --counters "$TMP/fx.plens" >"$TMP/fx.rep" 2>&1 &&
	"$PERFLENS" export --format counters-csv -o "$TMP/fx.csv" "$TMP/fx.plens" 2>>"$TMP/fx.rep"; then
	r=$(python3 - "$TMP/fx.rep" "$TMP/fx.csv" <<'PY'
import csv, sys
rep = open(sys.argv[1]).read().split('\n')
want = [  # name in the report, min, max, unit shown, first, second (CSV: the track's unit)
    ('policy0 frequency (cpus 0)', 1200, 1800, 'MHz', 1.2e9, 1.8e9),
    ('thermal cpu-thermal', 45, 71.5, '\u00b0C', 45, 71.5),
    ('hwmon ina226 power1 VDD_CPU', 1.5, 2.25, 'W', 1.5, 2.25),
    ('hwmon ina226 curr1', 0.25, 0.5, 'A', 0.25, 0.5),
    ('hwmon ina226 in0 vbus', 0.9, 1.1, 'V', 0.9, 1.1),
    ('hwmon ina226 temp1', 38, 52, '\u00b0C', 38, 52),
]
rows = list(csv.DictReader(open(sys.argv[2])))
bad = []
for name, lo, hi, unit, v1, v2 in want:
    line = [l for l in rep if ('  ' + name + '  (') in l]
    if not line:
        bad.append('no row %r' % name); continue
    f = line[0].split()
    if abs(float(f[1]) - lo) > 1e-3 or abs(float(f[3]) - hi) > 1e-3 or f[4] != unit:
        bad.append('%s: min %s max %s %s, want %g %g %s' % (name, f[1], f[3], f[4], lo, hi, unit))
    if 'not seen on hardware' not in line[0]:
        bad.append('%s: not marked "not seen on hardware"' % name)
    vals = [(int(r['time_ns']), float(r['value'])) for r in rows if r['track'] == name]
    t1 = [t for t, v in vals if abs(v - v1) <= 1e-9 * max(1, abs(v1))]
    t2 = [t for t, v in vals if abs(v - v2) <= 1e-9 * max(1, abs(v2))]
    if not t1 or not t2 or max(t1) > min(t2) or len(t1) + len(t2) != len(vals):
        bad.append('%s: CSV values %s' % (name, sorted(set(v for t, v in vals))))
idle = [l for l in rep if 'cpu0 idle WFI' in l]
if not idle or idle[0].split()[4] != '%':
    bad.append('no cpu0 idle WFI row in %')
print(('bad ' + '; '.join(bad[:4])) if bad else 'ok %d tracks checked' % len(want))
PY
)
	echo "# fixture: $r"
	case $r in ok*) ok sysfs_fixture_values ;; *) fail sysfs_fixture_values "${r#bad }" ;; esac
else
	fail sysfs_fixture_values "agent or perflens failed: $(tail -n 3 "$TMP/fx.err" "$TMP/fx.rep" 2>/dev/null | tr '\n' ' ')"
fi

# ─── --tracks 0 ───────────────────────────────────────────────────────
if "$AGENT" --output "$TMP/off.plens" --tracks 0 -- sleep 0.3 2>"$TMP/off.err" &&
	"$PERFLENS" report --counters "$TMP/off.plens" >"$TMP/off.rep" 2>&1 &&
	"$PERFLENS" export --format counters-csv -o "$TMP/off.csv" "$TMP/off.plens" 2>>"$TMP/off.rep"; then
	if grep -q 'Counter tracks: none' "$TMP/off.rep" && [ "$(wc -l <"$TMP/off.csv")" = 1 ]; then
		ok tracks_off
	else
		fail tracks_off "tracks in a --tracks 0 capture: $(grep -m1 'Counter tracks' "$TMP/off.rep")"
	fi
else
	fail tracks_off "agent or perflens failed: $(tail -n 3 "$TMP/off.err" "$TMP/off.rep" 2>/dev/null | tr '\n' ' ')"
fi
