#!/usr/bin/env bash
# viewer-ui-block-test.sh — the Block I/O page and the window's pick, in the
# GTK app under Xvfb, on a real recording: the agent records the whole
# board's block:block_rq_issue and block:block_rq_complete (what `record
# --block` adds) while one thread writes and reads a fresh loop device with
# O_DIRECT, 64 KiB at a time with naps between, so its requests are issued
# in its own context and spread over the recording.  The page counts the
# whole session (a request's thread is the one that ran the queue: a
# kworker when it ran later), as `perflens report --block` does and as
# `export block-csv` lists, which refuses --tid, --from and --to; with a
# pick it must say so rather than seem to follow it.
#   block_pick_hidden      (the driver's) the pick (that thread, 20 % to 70 %
#                          of the session) is made while the flame graph is
#                          shown and the page hidden; the page is then shown
#   block_rows_match_report  the page's device rows, after that pick, equal
#                          report --block's (requests, reads, writes,
#                          flushes, discards, KiB read and written, errors,
#                          p50, p90, p99, max); the loop device's row is there
#   block_says_whole_session  its summary says it shows the whole session,
#                          names the thread and the range, and its "Of the M
#                          completed requests, N were issued in the pick"
#                          equals export block-csv's completed rows (M, the
#                          summary's first count too) and those of that thread
#                          issued in the window's range (N, 0 < N < M); each of
#                          the slowest rows is marked ▶ exactly when a request
#                          of its thread, latency and kind in the pick exists
#   block_unpick_hidden    (the driver's) the pick cleared with the page hidden
#   block_unpicked         shown again, the page says nothing of a pick, marks
#                          nothing, and its rows are the same
#   screenshot_block-page.png  the page after the pick
# Screenshots go to $PL_UI_SCREENSHOTS (else a temporary directory).
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
DRIVER=$B/test/perflens-ui-script.so
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-ui-block: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-uiblock-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
PIDS=() LOOP= BACK=
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$BACK" ] && rm -f "$BACK"
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
pl_plan block_pick_hidden block_rows_match_report block_says_whole_session \
	screenshot_block-page.png block_unpick_hidden block_unpicked

for x in "$APP" "$AGENT"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
PY=/usr/bin/python3
[ -x "$PY" ] || pl_fail_all "$PY is not installed (ci/deps.sh)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
[ "$(id -u)" = 0 ] || pl_skip_all "[not-root] the agent records every CPU's block tracepoints and the test makes a loop device: root's"
pl_tracefs block/block_rq_issue >/dev/null ||
	pl_skip_all "[no-kernel-feature:block tracepoints] no block/block_rq_issue in tracefs"
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache HOME=$TMP/home
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=
mkdir -p "$SHOTS" "$HOME"

# ─── the loop device and the recording ──────────────────────────────────
pl_loop_device 16 "$TMP/loop.err"
case $? in
1) pl_fail_all "$(cat "$TMP/loop.err")" ;;
2) pl_skip_all "$(cat "$TMP/loop.err")" ;;
esac
# udev's probe of a new device (blkid reads it) over before the recording
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
sleep 0.5
cat >"$TMP/io.py" <<'PY'
import mmap, os, sys, threading, time
# one thread, O_DIRECT (its requests issued in its own context), page-aligned
# buffers; naps spread them over the recording
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 65536)
buf.write(os.urandom(65536))
print(threading.get_native_id(), flush=True)
for i in range(60):
    os.pwrite(fd, buf, (i % 128) * 65536)
    if i % 2:
        os.preadv(fd, [buf], ((i * 7) % 128) * 65536)
    time.sleep(0.04)
os.close(fd)
PY
CAP=$TMP/block.plens
"$AGENT" --output "$CAP" --all --callgraph fp --event block:block_rq_issue \
	--event block:block_rq_complete --duration 4 >"$TMP/agent.log" 2>&1 &
agentpid=$!
PIDS+=($agentpid)
sleep 0.6
"$PY" "$TMP/io.py" "$LOOP" >"$TMP/io.out" 2>"$TMP/io.err" || pl_fail_all "the O_DIRECT load failed: $(head -c 300 "$TMP/io.err")"
wait $agentpid || pl_fail_all "the agent could not record: $(tail -c 300 "$TMP/agent.log")"
[ -s "$CAP" ] || pl_fail_all "the agent wrote no recording: $(tail -c 300 "$TMP/agent.log")"
writer=$(head -n 1 "$TMP/io.out")
"$APP" report --block --top 20 "$CAP" >"$TMP/report.txt" 2>&1 || pl_fail_all "report --block failed: $(tail -c 300 "$TMP/report.txt")"
"$APP" export --format block-csv -o "$TMP/block.csv" "$CAP" >"$TMP/export.log" 2>&1 ||
	pl_fail_all "export block-csv failed: $(tail -c 300 "$TMP/export.log")"
echo "# writer thread $writer; $(grep -m1 '^Block I/O' "$TMP/report.txt")"

cat >"$TMP/block.script" <<EOF2
open $CAP
block-pick block_pick_hidden $writer 0.2 0.7
screenshot $SHOTS/block-page.png
block-pick block_unpick_hidden 0 0 0
EOF2
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/block.script \
	timeout 180 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -aE '^# block_pick_hidden-(filter|summary)' "$TMP/app.out"

res=$("$PY" - "$TMP/report.txt" "$TMP/block.csv" "$TMP/app.out" "$writer" <<'PY'
import csv, re, sys
rep = open(sys.argv[1]).read().split('\n')
rows = list(csv.DictReader(open(sys.argv[2])))
app = open(sys.argv[3], errors='replace').read().split('\n')
writer = sys.argv[4]
def lines(name, what):
    pre = '# %s-%s: ' % (name, what)
    return [l[len(pre):] for l in app if l.startswith(pre)]
dev_re = re.compile(r'^(\d+,\d+)\b')
def page_devices(table):
    out = {}
    for l in table:
        if l.startswith('Slowest'): break
        m = dev_re.match(l)
        if m: out[m.group(1)] = l.split()[-12:]
    return out
rep_dev, on = {}, False
for l in rep:
    if l.startswith('Per device:'): on = True; continue
    if on and not l.strip(): break
    f = l.split()
    if on and f and dev_re.match(f[0]): rep_dev[f[0]] = f[1:13]
filt = lines('block_pick_hidden', 'filter')
tid, t0, t1 = (int(filt[0].split()[0]), int(filt[0].split()[3]), int(filt[0].split()[4])) if filt else (0, 0, 0)
summary = ' '.join(lines('block_pick_hidden', 'summary'))
table = lines('block_pick_hidden', 'table')
page = page_devices(table)
loop = [r for r in rows if r['tid'] == writer]
loopdev = '%s,%s' % (loop[0]['major'], loop[0]['minor']) if loop else '?'
ok = bool(page) and page == rep_dev and loopdev in page
print(('ok' if ok else 'bad') + ' block_rows_match_report: page %s, report %s (loop device %s)' % (page, rep_dev, loopdev))
def in_pick(r):
    t = int(r['issue_ns'])
    return int(r['tid']) == tid and t >= t0 and (not t1 or t < t1)
done = [r for r in rows if r['complete_ns']]
want_in, want_all = sum(in_pick(r) for r in done), len(done)
m = re.search(r'Of the (\d+) completed requests, (\d+) were issued in the pick', summary)
head = re.match(r'(\d+) block requests completed', summary)
says = 'The whole session' in summary and ('%s)' % tid) in summary and 'range (' in summary
count_ok = bool(m and head) and (int(m.group(2)), int(m.group(1)), int(head.group(1))) == \
    (want_in, want_all, want_all) and 0 < want_in < want_all
marks_ok, on, n_slow = True, False, 0
for l in table:
    if l.startswith('Slowest'): on = True; continue
    s = re.match(r'^(▶ |  )\s*([0-9.]+) ms\s+\S+(?: [a-z]\S*)?\s+([A-Z]+)\s+[0-9.]+ KiB.*?\((\d+)\)  ', l)
    if not on or not s: continue
    n_slow += 1
    marked, lat, rwbs, rtid = s.group(1) == '▶ ', s.group(2), s.group(3), s.group(4)
    cands = [r for r in rows if r['tid'] == rtid and r['rwbs'] == rwbs and r['latency_ns'] and
             '%.3f' % (int(r['latency_ns']) / 1e6) == lat]
    if not any(in_pick(r) == marked for r in cands): marks_ok = False
ok = says and count_ok and marks_ok and n_slow > 0
print(('ok' if ok else 'bad') + ' block_says_whole_session: summary %r; in the pick %s of %s by export block-csv; %d slowest rows, marks %s' % (summary[:400], want_in, want_all, n_slow, 'agree' if marks_ok else 'disagree'))
summary2 = ' '.join(lines('block_unpick_hidden', 'summary'))
table2 = lines('block_unpick_hidden', 'table')
ok = bool(summary2) and 'whole session' not in summary2 and 'pick' not in summary2 and \
     not any(l.startswith('▶') for l in table2) and page_devices(table2) == rep_dev
print(('ok' if ok else 'bad') + ' block_unpicked: summary %r' % summary2[:300])
PY
)
for n in block_rows_match_report block_says_whole_session block_unpicked; do
	line=$(echo "$res" | grep " $n: ")
	case $line in ok*) ok "$n"; echo "# ${line#ok }" ;; *) fail "$n" "${line#bad }" ;; esac
done
