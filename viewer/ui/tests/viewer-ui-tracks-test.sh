#!/usr/bin/env bash
# viewer-ui-tracks-test.sh — the counter tracks under the thread timeline
# of the GTK app under Xvfb, on a real recording: the agent records a
# command with PERFLENS_SYSFS_ROOT at a tree laid out as the kernel
# documents it (a cpufreq policy, a thermal zone, an hwmon power input;
# values changed half way) plus the host's own RSS and CPU busy tracks,
# and the app opens the file:
#   tracks_shown        the view under the timeline is shown with a row for
#                       every track that has values
#   tracks_match_report each row's name, max and unit are those of `perflens
#                       report --counters` of the same file (within the
#                       rounding of what each prints), and the sysfs rows
#                       say "not seen on hardware"
#   screenshot_counter-tracks.png   the window ($PL_UI_SCREENSHOTS, else a
#                       temporary directory)
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
DRIVER=$B/test/perflens-ui-script.so
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-ui-tracks: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-uitracks-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
pl_plan tracks_shown tracks_match_report screenshot_counter-tracks.png

[ -x "$APP" ] || pl_fail_all "$APP not built (make)"
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
[ -x "$AGENT" ] || pl_fail_all "$AGENT not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache HOME=$TMP/home
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=
mkdir -p "$SHOTS" "$HOME"

S=$TMP/root/sys
P=$S/devices/system/cpu/cpufreq/policy0
Z=$S/devices/virtual/thermal/thermal_zone0
H=$S/devices/platform/soc/ina226/hwmon/hwmon0
mkdir -p "$P" "$Z" "$H" "$S/class/thermal" "$S/class/hwmon"
echo 0 >"$P/related_cpus"; echo 800000 >"$P/scaling_cur_freq"
echo soc-thermal >"$Z/type"; echo 50000 >"$Z/temp"
echo ina226 >"$H/name"; echo VDD_SOC >"$H/power1_label"; echo 750000 >"$H/power1_input"
ln -s ../../devices/virtual/thermal/thermal_zone0 "$S/class/thermal/thermal_zone0"
ln -s ../../devices/platform/soc/ina226/hwmon/hwmon0 "$S/class/hwmon/hwmon0"
cat >"$TMP/change.sh" <<EOF
sleep 0.6
echo 1600000 >"$P/scaling_cur_freq"; echo 64000 >"$Z/temp"; echo 1250000 >"$H/power1_input"
sleep 0.6
EOF
CAP=$TMP/tracks.plens
if ! PERFLENS_SYSFS_ROOT=$TMP/root "$AGENT" --output "$CAP" --tracks 20 -- sh "$TMP/change.sh" \
	>"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but the agent could not record: $(tail -c 300 "$TMP/agent.log")"
fi
"$APP" report --counters "$CAP" >"$TMP/report.txt" 2>&1

cat >"$TMP/tracks.script" <<EOF2
open $CAP
tracks 3 tracks_shown
screenshot $SHOTS/counter-tracks.png
EOF2
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/tracks.script \
	timeout 180 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -a '^# track-row' "$TMP/app.out"

res=$(python3 - "$TMP/report.txt" "$TMP/app.out" <<'PY'
import re, sys
rep = {}
for l in open(sys.argv[1]):
    m = re.match(r'^\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*?)  \((.*)\)(  not seen on hardware)?$', l.rstrip('\n'))
    if m and int(m.group(1)) > 0:
        rep[m.group(6)] = (float(m.group(4)), m.group(5), bool(m.group(8)))
rows = {}
for l in open(sys.argv[2]):
    if l.startswith('# track-row: '):
        t = l[len('# track-row: '):].rstrip('\n')
        rows[t.split(': ')[0]] = t
bad = []
if not rep:
    bad.append('the report lists no track with values')
for name, (mx, unit, sysfs) in rep.items():
    t = rows.get(name)
    if not t:
        bad.append('no row for %r' % name); continue
    m = re.search(r'max (-?[\d.]+) (\S+) over', t)
    if not m or m.group(2) != unit or abs(float(m.group(1)) - mx) > max(0.011 * abs(mx), 0.006):
        bad.append('%s: row says %s, report max %g %s' % (name, m.group(0) if m else '?', mx, unit))
    if sysfs != ('not seen on hardware' in t):
        bad.append('%s: "not seen on hardware" %s in the row' % (name, 'missing' if sysfs else 'wrongly'))
if len(rows) != len(rep):
    bad.append('%d rows, %d tracks with values in the report' % (len(rows), len(rep)))
print(('bad ' + '; '.join(bad[:4])) if bad else 'ok %d rows' % len(rows))
PY
)
echo "# compare: $res"
case $res in ok*) ok tracks_match_report ;; *) fail tracks_match_report "${res#bad }" ;; esac
