#!/usr/bin/env bash
# viewer-ui-irq-lanes-test.sh — the thread timeline's per-CPU interrupt
# lanes and its lock waits, in the GTK app under Xvfb, on real recordings.
# `perflens record --all --irq` through a live agent on loopback while a
# load runs (an HTTP server on 127.0.0.1 and requests to it with curl and
# Python, UDP datagrams to a local socket, 1 ms naps); the app opens the
# file, and what its lanes hold is compared with `perflens report --irq`
# and `perflens export irq-csv` of the same file:
#   irq_lanes               the lanes are drawn, and with level of detail: a
#                           lane draws no more rectangles than it has runs,
#                           and fewer when it has more runs than pixel
#                           columns (the driver's check)
#   irq_lanes_match_report  per CPU, the hardirq time and the softirq time
#                           (without the hardirqs inside) of the runs on its
#                           lane equal the report's per-CPU "Hardirq ms" and
#                           "Softirq ms" to the microsecond it prints; per
#                           handler and vector, the runs on the lanes equal
#                           irq-csv's paired count, and their sum every run
#                           (none dropped); NET_RX has runs (the load's)
#   irq_click               a click (X) on the longest run selects its [entry,
#                           exit] in every view; its tooltip names it and
#                           its CPU (the driver's check)
#   irq_collapse, irq_click_collapsed, irq_expand   a click (X) on the IRQ
#                           header collapses the lanes into that row, which
#                           then draws the runs; the click on the longest run
#                           selects it there too; a second click expands
#   irq_hover               the pointer on that run: the screen with its
#                           tooltip (irq-lanes-tooltip.png)
#   screenshot_irq-lanes.png, screenshot_irq-lanes-collapsed.png
#   irq_page_lod            the Interrupts page's own lanes (a hardirq and a
#                           softirq lane per CPU) hold every run of its stats
#                           and draw them with the same level of detail (the
#                           driver's check); screenshot_irq-page.png
#   irq_keeps_sampling      the same recording (no --event) also holds
#                           samples of the default event: --irq adds to the
#                           profile, it does not replace it
#   irq_range               report --irq and export irq-csv with --from 1
#                           --to 2 (moved off any entry by 10 us steps: the
#                           listing rounds to the microsecond), and with
#                           --tid (the thread interrupted
#                           most): per handler and vector, the count equals
#                           the entries `report --tracepoints` lists in that
#                           second (its times are from the same first
#                           record), or on that thread; and the range's is
#                           less than the whole recording's
#   irq_page_filter_shown   (the driver's) the page is shown after the pick
#   irq_page_filter         the window's thread and range set as a pick in
#                           another view sets them (the most interrupted
#                           thread, 30 % to 60 % of the session): the
#                           Interrupts page follows, per handler and vector
#                           equal to report --irq --tid --from --to
# Then test/workloads/locks (one thread holds a mutex 5 ms of every 10,
# three want it) recorded with the events `record --locks` asks for:
#   lock_wait_tooltip       the tooltip on the bar of the longest wait the
#                           holder released names the lock's address and
#                           "held by NAME TID" (the driver's check), with the
#                           address and the holder's tid the program printed
# Screenshots go to $PL_UI_SCREENSHOTS (else a temporary directory).
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} W=$B/workloads/locks
DRIVER=$B/test/perflens-ui-script.so
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-ui-irq-lanes: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-uiirq-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
pl_plan irq_lanes irq_lanes_match_report irq_click screenshot_irq-lanes.png irq_collapse \
	screenshot_irq-lanes-collapsed.png irq_click_collapsed irq_expand irq_hover \
	lock_wait_tooltip irq_keeps_sampling irq_page_lod screenshot_irq-page.png irq_range \
	irq_page_filter_shown irq_page_filter

for x in "$APP" "$AGENT" "$W"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
PY=/usr/bin/python3
[ -x "$PY" ] || pl_fail_all "$PY is not installed (ci/deps.sh)"
for c in xvfb-run xdotool import curl; do
	command -v $c >/dev/null || pl_fail_all "$c not installed (ci/deps.sh)"
done
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
[ "$(id -u)" = 0 ] || pl_skip_all "[not-root] the agent records every CPU's irq tracepoints: root's"
pl_tracefs irq/softirq_entry >/dev/null ||
	pl_skip_all "[no-kernel-feature:irq tracepoints] no irq/softirq_entry in tracefs"
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache HOME=$TMP/home
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=
mkdir -p "$SHOTS" "$HOME"

# ─── the recording: loopback network and timers under --all --irq ────────
cat >"$TMP/load.py" <<'PY'
import http.server, socket, subprocess, sys, threading, time, urllib.request
srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)
srv.RequestHandlerClass.log_message = lambda *a: None
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = 'http://127.0.0.1:%d/' % srv.server_address[1]
end = time.time() + float(sys.argv[1])
def http_load():
    while time.time() < end:
        urllib.request.urlopen(url, timeout=10).read()
def curl_load():
    while time.time() < end:
        subprocess.run(['curl', '-s', '-o', '/dev/null', url], timeout=10)
def udp_load():
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.bind(('127.0.0.1', 0))
    r.settimeout(1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    i = 0
    while time.time() < end:
        i += 1
        if i % 50 == 0:
            time.sleep(0.005)
        s.sendto(b'x' * 512, r.getsockname())
        try:
            r.recv(1024)
        except socket.timeout:
            pass
def timer_load():
    while time.time() < end:
        time.sleep(0.001)
ts = [threading.Thread(target=f) for f in (http_load, curl_load, udp_load, timer_load)]
for t in ts: t.start()
for t in ts: t.join()
srv.shutdown()
PY
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$AGENT" --listen --bind 127.0.0.1 --port "$port" --token irq-token >"$TMP/agent.log" 2>&1 &
PIDS+=($!)
up=
for _ in $(seq 100); do
	(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && up=1 && break
	sleep 0.05
done
[ -n "$up" ] || pl_fail_all "the agent did not listen on $port: $(head -c 300 "$TMP/agent.log")"
CAP=$TMP/irq.plens
"$PY" "$TMP/load.py" 5 >"$TMP/load.log" 2>&1 &
loadpid=$!
PIDS+=($loadpid)
sleep 0.5
"$APP" record 127.0.0.1:"$port" --token irq-token --all --irq --duration 3 -o "$CAP" \
	>"$TMP/rec.log" 2>&1 || pl_fail_all "perflens record --all --irq failed: $(tail -c 400 "$TMP/rec.log" | tr '\n' '|')"
wait $loadpid
"$APP" report --irq "$CAP" >"$TMP/report.txt" 2>&1 || pl_fail_all "report --irq failed: $(tail -c 300 "$TMP/report.txt")"
# --irq is an extra: without --event the recording still samples (the
# default event, cpu-clock where the machine has no PMU) on every CPU
"$APP" report "$CAP" >"$TMP/plain.txt" 2>&1
sampled=$(sed -nE 's/^  samples by event: (cycles|cpu-clock) ([0-9]+).*/\2/p' "$TMP/plain.txt")
if [ "${sampled:-0}" -gt 0 ] && ! grep -q '^  (no samples)' "$TMP/plain.txt"; then
	ok irq_keeps_sampling; echo "# --all --irq: $(grep -m1 'samples by event' "$TMP/plain.txt" | sed 's/^ *//')"
else fail irq_keeps_sampling "no sampling event beside the irq tracepoints: $(head -c 400 "$TMP/plain.txt" | tr '\n' '|')"; fi
"$APP" export --format irq-csv -o "$TMP/irq.csv" "$CAP" >"$TMP/export.log" 2>&1 ||
	pl_fail_all "export irq-csv failed: $(tail -c 300 "$TMP/export.log")"

# a second of the recording, and the thread interrupted most, against the
# entries the tracepoint listing shows (another path through the file)
"$APP" report --tracepoints "$CAP" >"$TMP/tp.txt" 2>&1
# (a thread's name may hold spaces: the event is found among the fields)
entries='{ for (i = 3; i < NF; i++) if ($i == "irq:softirq_entry" || $i == "irq:irq_handler_entry") { '
top_tid=$(awk "$entries"'n[$2]++; break } } END { for (t in n) if (n[t] > m) { m = n[t]; b = t } print b }' "$TMP/tp.txt")
# the listing prints microseconds: edges near 1 s and 2 s with no entry
# within 5 us of them, so its rounding cannot put one on the wrong side
edges=$(awk "$entries"'print $1; break } }' "$TMP/tp.txt" |
	"$PY" -c '
import sys
ts = [float(l) for l in sys.stdin]
def clear(e):
    while any(abs(t - e) < 5e-6 for t in ts): e += 1e-5
    return "%.5f" % e
print(clear(1.0), clear(2.0))')
set -- $edges
from=${1:-1} to=${2:-2}
"$APP" report --irq --from "$from" --to "$to" "$CAP" >"$TMP/range.txt" 2>&1
"$APP" export --format irq-csv --from "$from" --to "$to" -o "$TMP/range.csv" "$CAP" >>"$TMP/range.txt" 2>&1
"$APP" report --irq --tid "${top_tid:-0}" "$CAP" >"$TMP/tid.txt" 2>&1
"$APP" export --format irq-csv --tid "${top_tid:-0}" -o "$TMP/tid.csv" "$CAP" >>"$TMP/tid.txt" 2>&1
res=$("$PY" - "$TMP/tp.txt" "$TMP/range.txt" "$TMP/range.csv" "$TMP/tid.txt" "$TMP/tid.csv" \
	"$TMP/irq.csv" "${top_tid:-0}" "$from" "$to" "$TOP/test/tools" <<'PY'
import csv, re, sys
sys.path.insert(0, sys.argv[10])
tp = [l.split() for l in open(sys.argv[1])]
def listed(keep):
    n = {}
    for f in tp:
        i = next((i for i in range(2, len(f) - 1)
                  if f[i] in ('irq:softirq_entry', 'irq:irq_handler_entry')), None)
        if i is None: continue
        try: t = float(f[0])
        except ValueError: continue
        if not keep(t, f[1]): continue
        m = re.match(r'(vec|irq)=(\d+)', f[i + 1])
        k = ('softirq' if m.group(1) == 'vec' else 'hardirq', int(m.group(2)))
        n[k] = n.get(k, 0) + 1
    return n
from irq_report import counts as report
def exported(path):
    n = {}
    for r in csv.DictReader(open(path)):
        if r['cpu'] == 'all':
            k = (r['kind'], int(r['number'])); n[k] = n.get(k, 0) + int(r['count'])
    return n
def nz(d): return {k: v for k, v in d.items() if v}
bad = []
t0, t1 = float(sys.argv[8]), float(sys.argv[9])
rng = nz(listed(lambda t, tid: t0 <= t < t1))
tid = nz(listed(lambda t, tid: tid == sys.argv[7]))
whole = nz(exported(sys.argv[6]))
for name, want, got in (('--from/--to report', rng, nz(report(sys.argv[2]))),
                        ('--from/--to irq-csv', rng, nz(exported(sys.argv[3]))),
                        ('--tid %s report' % sys.argv[7], tid, nz(report(sys.argv[4]))),
                        ('--tid %s irq-csv' % sys.argv[7], tid, nz(exported(sys.argv[5])))):
    if want != got:
        bad.append('%s: %s, listed %s' % (name, sorted(got.items())[:6], sorted(want.items())[:6]))
if not rng or sum(rng.values()) >= sum(whole.values()):
    bad.append('the second holds %d entries of the recording\'s %d' % (sum(rng.values()), sum(whole.values())))
print(('bad ' + '; '.join(bad)) if bad else 'ok %d entries in [%s s, %s s) of %d, %d on tid %s, by %d handlers and vectors'
      % (sum(rng.values()), sys.argv[8], sys.argv[9], sum(whole.values()), sum(tid.values()), sys.argv[7], len(rng)))
PY
)
case $res in
ok*) ok irq_range; echo "# irq_range: ${res#ok }" ;;
*) fail irq_range "${res#bad } (see $TMP/range.txt, $TMP/tid.txt)" ;;
esac

cat >"$TMP/irq.script" <<EOF2
open $CAP
irq-lanes irq_lanes
view flame
screenshot $SHOTS/irq-lanes.png
irq-click irq_click
irq-toggle irq_collapse
screenshot $SHOTS/irq-lanes-collapsed.png
irq-click irq_click_collapsed
irq-toggle irq_expand
irq-hover $SHOTS/irq-lanes-tooltip.png irq_hover
view irq
irq-page irq_page_lod
screenshot $SHOTS/irq-page.png
irq-filter irq_page_filter_shown $top_tid 0.3 0.6
EOF2
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/irq.script \
	timeout 240 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -aE '^# irq-(lanes|cpu|click|toggle|page-cpu)' "$TMP/app.out"

res=$("$PY" - "$TMP/report.txt" "$TMP/irq.csv" "$TMP/app.out" <<'PY'
import csv, re, sys
rep = open(sys.argv[1]).read().split('\n')
rows = list(csv.DictReader(open(sys.argv[2])))
app = open(sys.argv[3]).read().split('\n')
bad = []
# the report's per-CPU rows: CPU HARDIRQS HARD_MS SHARE% SOFTIRQS SOFT_MS SHARE%
per_cpu, on = {}, False
for l in rep:
    if l.startswith('Per CPU'): on = True; continue
    if on and not l.strip() and per_cpu: break
    f = l.split()
    if on and len(f) == 7 and f[0].isdigit():
        per_cpu[int(f[0])] = (f[2], f[5])
lanes = {}
for l in app:
    m = re.match(r'# irq-cpu (\d+) (\d+) (\d+) (\d+) (\d+) drawn', l)
    if m:
        c, hn, hns, sn, sns = map(int, m.groups())
        lanes[c] = (hn, hns, sn, sns)
if not lanes: bad.append('the app printed no lanes')
for c, (hn, hns, sn, sns) in sorted(lanes.items()):
    want = per_cpu.get(c)
    got = ('%.3f' % (hns / 1e6), '%.3f' % (sns / 1e6))
    if want != got:
        bad.append('CPU %d: lanes %s/%s ms, report %s' % (c, got[0], got[1], want))
if set(lanes) != set(per_cpu):
    bad.append('CPUs: lanes %s, report %s' % (sorted(lanes), sorted(per_cpu)))
paired = {}
for r in rows:
    if r['cpu'] == 'all':
        paired[(r['kind'], r['number'], r['name'])] = int(r['paired'])
runs = {}
for l in app:
    if l.startswith('# irq-source '):
        k, n, name, cnt = l[len('# irq-source '):].split('\t')
        runs[(k, n, name)] = int(cnt)
if runs != paired:
    diff = {k: (runs.get(k), paired.get(k)) for k in set(runs) | set(paired) if runs.get(k) != paired.get(k)}
    bad.append('runs per source differ from irq-csv paired (lanes, csv): %s' % diff)
head = next((l for l in app if l.startswith('# irq-lanes ')), '')
m = re.search(r'spans (\d+) dropped (\d+)', head)
total = sum(paired.values())
if not m or int(m.group(1)) != total or int(m.group(2)) != 0:
    bad.append('%s, irq-csv pairs %d' % (head, total))
netrx = sum(v for k, v in runs.items() if k[0] == 'softirq' and k[2] == 'NET_RX')
if netrx == 0: bad.append('no NET_RX run on the lanes')
print(('bad ' if bad else 'ok ') + 'irq_lanes_match_report: %d CPUs, %d runs (%d NET_RX), %d sources; %s' %
      (len(lanes), total, netrx, len(runs), '; '.join(bad) or 'per-CPU times and per-source runs equal'))
PY
)
case $res in ok*) ok irq_lanes_match_report; echo "# ${res#ok }" ;; *) fail irq_lanes_match_report "${res#bad }" ;; esac

# the Interrupts page after the pick, against the report of that filter
flt=$(grep -a -m1 '^# irq_page_filter_shown-filter: ' "$TMP/app.out" | cut -d' ' -f3-)
if [ -z "$flt" ]; then
	fail irq_page_filter "the app printed no filter (see $TMP/app.out)"
else
	set -- $flt
	"$APP" report --irq --tid "$1" --from "$2" --to "$3" "$CAP" >"$TMP/page-filter.txt" 2>&1
	res=$("$PY" - "$TMP/page-filter.txt" "$TMP/app.out" "$TMP/report.txt" "$TOP/test/tools" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
from irq_report import counts as report
want, whole = report(sys.argv[1]), report(sys.argv[3])
got = {}
for l in open(sys.argv[2], errors='replace'):
    f = l.split()
    if len(f) == 5 and f[1] == 'irq_page_filter_shown-source':
        k = (f[2], int(f[3])); got[k] = got.get(k, 0) + int(f[4])
got = {k: v for k, v in got.items() if v}
if not want or want != got or sum(want.values()) >= sum(whole.values()):
    print('bad page %s, report %s (whole %d)' % (sorted(got.items())[:5], sorted(want.items())[:5],
                                                 sum(whole.values())))
else:
    print('ok %d runs by %d handlers and vectors, of %d in the recording'
          % (sum(got.values()), len(got), sum(whole.values())))
PY
)
	case $res in
	ok*) ok irq_page_filter; echo "# irq_page_filter: tid $1, $2 s to $3 s: ${res#ok }" ;;
	*) fail irq_page_filter "${res#bad } (tid $1, $2 s to $3 s)" ;;
	esac
fi

# ─── lock waits on the waiting threads' lanes ───────────────────────────
LCAP=$TMP/locks.plens
if ! "$AGENT" --output "$LCAP" --callgraph fp --event syscalls:sys_enter_futex \
	--event syscalls:sys_exit_futex --event sched:sched_waking -- "$W" "$TMP/exp" 30 \
	>"$TMP/lagent.log" 2>&1; then
	fail lock_wait_tooltip "the agent could not record the locks workload: $(tail -c 300 "$TMP/lagent.log")"
	exit 0
fi
addr=$(awk '$1 == "lock" { print $2 }' "$TMP/exp")
holder=$(awk '$1 == "holder" { print $2 }' "$TMP/exp")
cat >"$TMP/locks.script" <<EOF2
open $LCAP
lock-wait-tip lock_wait_tooltip_driver $holder
EOF2
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/locks.script \
	timeout 180 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/lapp.out" 2>"$TMP/lapp.err"
pl_no_display "$TMP/lapp.err"
tip=$(grep -a '^# lock-tip ' "$TMP/lapp.out" | head -n 1)
echo "$tip"
drv=$(grep -a 'lock_wait_tooltip_driver' "$TMP/lapp.out" | head -n 1)
case $drv in
ok*)
	if [[ $tip == *"$addr"* && $tip == *"held by "*" $holder (lock wait)"* ]]; then
		ok lock_wait_tooltip
	else
		fail lock_wait_tooltip "the tooltip does not name the program's lock $addr and holder $holder: $tip"
	fi ;;
*) fail lock_wait_tooltip "${drv:-the app printed nothing: $(tail -c 300 "$TMP/lapp.err")}" ;;
esac
