#!/usr/bin/env bash
# viewer-ui-locks-test.sh — the Locks page of the GTK app under Xvfb (issue
# 30), on a real recording: the agent records test/workloads/locks (one
# thread holds contended_lock 5 ms of every 10, three want it) with the
# events `record --locks` asks for, and the app opens the file:
#   locks_page          the Locks page is shown (not hidden) with the lock of
#                       the address the program printed, which is picked
#   locks_match_report  what it shows is `perflens report --locks` of the
#                       same file: the number of locks and waits and the
#                       time waited in its summary, the lock's label
#                       (contended_lock (ADDRESS)) and each waiter's total
#   locks_holder        its "Held by" list starts with the holder thread
#                       (the program's), as the report's does
#   locks_thread_filter the window's thread set to one waiter (as a pick in
#                       the timeline sets it): the page's summary and the
#                       lock's waiters are `perflens report --locks --tid`
#                       of that thread, fewer waits than the whole
#   locks_range_filter  the window's range set to [25 %, 75 %] of the
#                       session (all threads): the page is `report --locks
#                       --from --to` of that range, fewer waits than the whole
#   screenshot_locks-view.png   the page ($PL_UI_SCREENSHOTS, else a
#                       temporary directory)
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} W=$B/workloads/locks
DRIVER=$B/test/perflens-ui-script.so
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-ui-locks: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-uilocks-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
pl_plan locks_page locks_match_report locks_holder locks_thread_filter locks_range_filter \
	screenshot_locks-view.png

[ -x "$APP" ] || pl_fail_all "$APP not built (make)"
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
[ -x "$AGENT" ] && [ -x "$W" ] || pl_fail_all "$AGENT or $W not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache HOME=$TMP/home
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=
mkdir -p "$SHOTS" "$HOME"

CAP=$TMP/locks.plens
if ! "$AGENT" --output "$CAP" --callgraph fp --event syscalls:sys_enter_futex \
	--event syscalls:sys_exit_futex --event sched:sched_waking -- "$W" "$TMP/exp" 50 \
	>"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but the agent could not record: $(tail -c 300 "$TMP/agent.log")"
fi
"$APP" report --locks "$CAP" >"$TMP/report.txt" 2>&1

addr=$(awk '$1 == "lock" { print $2 }' "$TMP/exp")
waiter=$(awk '$1 == "waiter" { print $2; exit }' "$TMP/exp")
cat >"$TMP/locks.script" <<EOF2
open $CAP
locks locks_page $addr
screenshot $SHOTS/locks-view.png
locks-filter locks_thread_filter $waiter 0 0 $addr
locks-filter locks_range_filter 0 0.25 0.75 $addr
EOF2
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/locks.script \
	timeout 180 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -aE '^# locks-summary' "$TMP/app.out"

res=$(python3 - "$TMP/report.txt" "$TMP/app.out" "$TMP/exp" <<'PY'
import re, sys
rep = open(sys.argv[1]).read().split('\n')
app = open(sys.argv[2]).read().split('\n')
exp = {l.split()[0]: l.split()[1:] for l in open(sys.argv[3]) if l.strip()}
addr, holder = exp['lock'][0], exp['holder'][0]
summary = next((l[len('# locks-summary: '):] for l in app if l.startswith('# locks-summary: ')), '')
details = [l[len('# locks-details: '):] for l in app if l.startswith('# locks-details: ')]
head = next((l for l in rep if l.startswith('Lock contention: ')), '')
m = re.match(r'Lock contention: (\d+) locks, (\d+) futex waits .*?, ([0-9.]+) ms waited', head)
n = re.match(r'(\d+) locks, (\d+) futex waits, ([0-9.]+) ms waited', summary)
same = bool(m and n and m.groups() == n.groups())
label = 'contended_lock (%s)' % addr
first_ok = bool(details) and details[0].startswith(label)
# the report's waiters of that lock, and the page's
def rows(lines, start, stop):
    out, on = {}, False
    for l in lines:
        if start(l): on = True; continue
        if on and stop(l): break
        f = l.split()
        if on and len(f) >= 3 and f[-1].isdigit() and f[1] == 'ms':
            out[f[-1]] = f[0]
    return out
page_w = rows(details, lambda l: l == 'Waiters', lambda l: l.startswith('Held by'))
rep_w, on = {}, False
for l in rep:
    if l.startswith('Lock ') and ('(%s)' % addr) in l: on = True
    elif on and l.startswith('  Held by'): break
    elif on and re.match(r'^ +\d+ ', l):
        f = l.split(); rep_w[f[0]] = f[-1]
waiters_ok = bool(page_w) and page_w == rep_w
print(('ok' if same and first_ok and waiters_ok else 'bad') + ' locks_match_report: page %r, report %r; first lock %r (want %s); waiters page %s report %s' % (summary, head[:90], details[0] if details else '', label, page_w, rep_w))
at = next((i for i, d in enumerate(details) if d.startswith('Held by')), len(details))
held = details[at + 1:]
first_holder = next((l for l in held if re.match(r'^ +[0-9.]+ ms ', l)), '')
print(('ok' if first_holder.split(',')[0].split()[-1:] == [holder] else 'bad') + ' locks_holder: %r (holder %s)' % (first_holder.strip(), holder))
PY
)
for n in locks_match_report locks_holder; do
	line=$(echo "$res" | grep " $n: ")
	case $line in ok*) ok "$n"; echo "# ${line#ok }" ;; *) fail "$n" "${line#bad }" ;; esac
done

# ─── the window's thread and range: the report of the same selection ───
filtered() { # NAME
	local f tid from to
	f=$(grep -aE "^# $1-filter: " "$TMP/app.out" | head -1)
	[ -n "$f" ] || { echo "bad $1: the driver printed no filter line"; return; }
	read -r tid from to <<<"${f#\# $1-filter: }"
	"$APP" report --locks --tid "$tid" --from "$from" --to "$to" "$CAP" >"$TMP/$1.txt" 2>&1
	python3 - "$1" "$TMP/$1.txt" "$TMP/report.txt" "$TMP/app.out" "$addr" "$tid $from $to" <<'PY'
import re, sys
name, rep, whole, app, addr, sel = sys.argv[1], open(sys.argv[2]).read().split('\n'), open(sys.argv[3]).read().split('\n'), open(sys.argv[4]).read().split('\n'), sys.argv[5], sys.argv[6]
def head(lines):
    h = next((l for l in lines if l.startswith('Lock contention: ')), '')
    return re.match(r'Lock contention: (\d+) locks, (\d+) futex waits .*?, ([0-9.]+) ms waited', h)
pre = '# %s-summary: ' % name
summary = next((l[len(pre):] for l in app if l.startswith(pre)), '')
details = [l[len('# %s-details: ' % name):] for l in app if l.startswith('# %s-details: ' % name)]
m, w = head(rep), head(whole)
n = re.match(r'(\d+) locks, (\d+) futex waits, ([0-9.]+) ms waited', summary)
same = bool(m and n and m.groups() == n.groups())
fewer = bool(m and w and int(m.group(2)) < int(w.group(2)))
page_w, on = {}, False
for l in details:
    if l == 'Waiters': on = True; continue
    if on and l.startswith('Held by'): break
    f = l.split()
    if on and len(f) >= 3 and f[-1].isdigit() and f[1] == 'ms':
        page_w[f[-1]] = f[0]
rep_w, on = {}, False
for l in rep:
    if l.startswith('Lock ') and ('(%s)' % addr) in l: on = True
    elif on and l.startswith('  Held by'): break
    elif on and re.match(r'^ +\d+ ', l):
        f = l.split(); rep_w[f[0]] = f[-1]
ok = same and fewer and bool(page_w) and page_w == rep_w
print(('ok' if ok else 'bad') + ' %s: selection (tid from to) %s: page %r, report --locks %r, whole %s waits; waiters page %s report %s' % (name, sel, summary, m.group(0) if m else None, w.group(2) if w else '?', page_w, rep_w))
PY
}
for n in locks_thread_filter locks_range_filter; do
	line=$(filtered $n | grep " $n: ")
	case $line in ok*) ok "$n"; echo "# ${line#ok }" ;; *) fail "$n" "${line#bad }" ;; esac
done
