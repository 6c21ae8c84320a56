#!/usr/bin/env bash
# viewer-ui-io-test.sh — slow system calls in the GTK app (issue 19), on a
# real recording: the app connects to the real agent on loopback, its
# Record form starts test/workloads/syscalls with "Slow system calls:
# clock_nanosleep, slower than 1ms", and the I/O page of that session is
# checked against `perflens report --tracepoints` on the very file the app
# saved (the oracle for every duration) and the workload's own EXPECT:
#   app_form_syscalls   the session records and ends with the program
#   io_page             the I/O page shows: its clock_nanosleep row counts
#                       every slow call, 20 of them in slow_sleep (short
#                       sleeps that really took over 1 ms on a loaded
#                       machine are tolerated as syscalls.sh does, and only
#                       in short_sleep); its total is the sum of the recorded
#                       durations; the flame graph's root weighs that sum;
#                       the timeline draws one bar per call
#   io_click_slowest    a click (X) on the slowest call's row selects its
#                       [entry, exit] in every view; it is the report's
#                       longest call, at the report's time, its stack shown
#                       (in slow_sleep, or short_sleep when a short one
#                       overslept); the page keeps every call (the report's
#                       all), that row selected: a picked call's range is
#                       for the other views
#   io_click_bar        a click on that call's bar in the timeline selects
#                       its range, and the page keeps every call as above
#   io_clear_live       "Show everything" (clicked through X) brings every
#                       call back (the clicked one stays selected, its stack
#                       shown: io-view.png)
#   io_hidden           a session without slow calls has no I/O page
# Then the I/O page follows the window's filter on a file the agent wrote
# itself (--output, the same workload): every "# io-sel" line the driver
# prints (the window's thread and range, the calls the page counts) is
# compared with the calls of `report --tracepoints` on that file whose
# thread and entry time fall in it (entries within 1.5 us of an end, the
# report's rounding, may count either way); in each, the page's row, flame
# graph root, histogram and slowest list agree with its count, and its
# first line says "N of M slow system calls" (or "None of M") when filtered:
#   io_range            a drag (X) across the main thread's lane from 25 %
#                       to 60 % of the session: some calls, not all
#   io_range_thread     then a click on the main thread's name: that thread
#                       in that range
#   io_clear            "Show everything": all of them, as the report
#   io_thread_none      a click on the other thread's name (it only makes
#                       short sleeps): the report's count for it, 0 unless a
#                       0.2 ms sleep overslept 1 ms
#   io_thread_toggle    a second click on that name: all threads again
# The page is photographed to $PL_UI_SCREENSHOTS/io-view.png (every call,
# the slowest selected) and io-view-filtered.png (the range of io_range),
# else to a temporary directory.  PL_AGENT: the agent under test.
set -u
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} W=$B/workloads/syscalls BURN=$B/workloads/burn
DRIVER=$B/test/perflens-ui-script.so
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-io: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-io-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
APID=
cleanup() {
	[ -z "$APID" ] || { kill "$APID" 2>/dev/null; wait "$APID" 2>/dev/null; }
	pl_unreported
	[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
CASES="app_form_syscalls io_page io_click_slowest io_click_bar io_clear_live io_hidden io_range
io_range_thread io_clear io_thread_none io_thread_toggle"
pl_plan $CASES
for x in "$APP" "$AGENT" "$W" "$BURN"; do [ -x "$x" ] || pl_fail_all "$x not built (make)"; done
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
# no leak check of the app (fontconfig's caches: viewer-ui-live-test.sh)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
mkdir -p "$SHOTS"

# a recording of the workload by the agent itself, for the filter's cases
"$AGENT" --output "$TMP/sc.plens" --callgraph fp --syscalls clock_nanosleep --slower-than 1ms \
	-- "$W" "$TMP/sc-expect" 10 >"$TMP/sc.log" 2>&1 ||
	pl_fail_all "the agent could not record syscalls: $(tail -2 "$TMP/sc.log" | tr '\n' ' ')"
"$APP" report --tracepoints "$TMP/sc.plens" >"$TMP/sc-tp.txt" 2>&1 ||
	pl_fail_all "report --tracepoints $TMP/sc.plens: $(tail -2 "$TMP/sc-tp.txt" | tr '\n' ' ')"

# a session without slow calls
"$AGENT" --output "$TMP/burn.plens" --frequency 499 -- "$BURN" 0.3 1 >"$TMP/burn.log" 2>&1 ||
	pl_fail_all "the agent could not record burn: $(tail -2 "$TMP/burn.log" | tr '\n' ' ')"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
token=io-test-$RANDOM
"$AGENT" --listen --bind 127.0.0.1 --port "$port" --token "$token" >"$TMP/agent.log" 2>&1 &
APID=$!
up=
for _ in $(seq 100); do
	(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && { up=1; break; }
	sleep 0.05
done
[ -n "$up" ] || pl_fail_all "the agent did not listen on $port: $(head -c 300 "$TMP/agent.log")"

WABS=$(cd "$(dirname "$W")" && pwd)/$(basename "$W")
cat >"$TMP/io.script" <<EOS
connect 127.0.0.1:$port $token
command $WABS $TMP/expect 10
syscalls clock_nanosleep 1ms
start-wait-end app_form_syscalls
view io
expect-io clock_nanosleep io_page
io-click-slowest _sleep io_click_slowest
io-click-bar io_click_bar
io-clear io_clear_live
screenshot $SHOTS/io-view.png
open $TMP/sc.plens
view io
io-drag 0.25 0.6 io_range
screenshot $SHOTS/io-view-filtered.png
io-click-thread main io_range_thread
io-clear io_clear
io-click-thread other io_thread_none
io-click-thread other io_thread_toggle
open $TMP/burn.plens
expect-io-hidden io_hidden
EOS
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/io.script \
	timeout 150 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
rc=$?
pl_no_display "$TMP/app.err"
if grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$TMP/app.err"; then
	pl_fail_all "exit $rc: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$TMP/app.err" | tr '\n' '|' | head -c 1500)"
fi
grep -aE '^# ' "$TMP/app.out"

# the oracle: the saved session's calls as the report lists them, and
# what the program says it did
saved=$(ls "$XDG_DATA_HOME"/perflens/sessions/*.plens 2>/dev/null | head -1)
oracle=bad
if [ -n "$saved" ] && [ -s "$TMP/expect" ]; then
	"$APP" report --tracepoints "$saved" >"$TMP/tp.txt" 2>&1
	oracle=$(python3 - "$TMP/expect" "$TMP/tp.txt" <<'PY'
import sys
exp = dict(l.split(None, 1) for l in open(sys.argv[1]) if l.startswith(('pid', 'calls')))
pid = exp['pid'].strip()
measured = [int(l.split()[2]) for l in open(sys.argv[1]) if l.startswith('slow ')]
n = slow = total = 0; bad = []; longest = (0, 0.0)
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) > 3 and f[3] == 'slow-syscalls':
        d = int([x for x in f if x.startswith('duration_ns=')][0].split('=')[1])
        n += 1; total += d
        if d > longest[0]: longest = (d, float(f[0]))
        if 'slow_sleep' in l and f[1] == pid: slow += 1
        elif 'short_sleep' not in l: bad.append(l.strip()[:120])
# each 5 ms call as the kernel timed it lies within the program's own
# measure around it
ours = sorted(int(x.split('=')[1]) for l in open(sys.argv[2]) if 'slow_sleep' in l
              for x in l.split() if x.startswith('duration_ns='))
within = len(ours) == len(measured) == 20 and sum(ours) <= sum(measured) and min(ours) >= 5000000
print('ok' if slow == 20 and not bad and within else 'bad', n, total, longest[0], '%.6f' % longest[1],
      'slow_sleep %d (want 20), %d others: %s; kernel %s vs measured %s' % (slow, len(bad), bad[:2], sum(ours), sum(measured)))
PY
)
fi
echo "# oracle (report --tracepoints of $saved): $oracle"
# the page under each filter against the report's calls in it
python3 - "$TMP/app.out" "$TMP/tp.txt" "$TMP/expect" "$TMP/sc-tp.txt" "$TMP/sc-expect" \
	>"$TMP/sel.txt" <<'PY'
import sys
out, live_tp, live_exp, file_tp, file_exp = sys.argv[1:6]
def lines(path):
    try:
        return open(path, errors='replace').readlines()
    except OSError:
        return []  # no session: its cases fail below
def calls(path):
    r = []
    for l in lines(path):
        f = l.split()
        if len(f) > 3 and f[3] == 'slow-syscalls':
            r.append((float(f[0]), int(f[1])))
    return r
def pid(path):
    for l in lines(path):
        if l.startswith('pid '):
            return int(l.split()[1])
    return -1
src = {'live': (calls(live_tp), pid(live_exp)), 'file': (calls(file_tp), pid(file_exp))}
live_cases = ('io_click_slowest', 'io_click_bar', 'io_clear_live')
for l in lines(out):
    if not l.startswith('# io-sel '):
        continue
    _, _, name, tid, t0, t1, shown, alln = l.split()
    tid, shown, alln = int(tid), int(shown), int(alln)
    cs, main = src['live' if name in live_cases else 'file']
    sel = [c for c in cs if not tid or c[1] == tid]
    if t0 == '-':
        lo = hi = len(sel)
    else:
        a, b, eps = float(t0), float(t1), 1.5e-6
        lo = sum(1 for t, _ in sel if a + eps <= t < b - eps)
        hi = sum(1 for t, _ in sel if a - eps <= t < b + eps)
    bad = []
    if not lo <= shown <= hi:
        bad.append('the page counts %d, the report %d' % (shown, lo) +
                   ('' if lo == hi else '..%d' % hi))
    if alln != len(cs):
        bad.append('the page has %d calls in all, the report %d' % (alln, len(cs)))
    if name == 'io_range' and not (lo > 0 and hi < len(cs)):
        bad.append('the range holds %d..%d of %d calls: it tells nothing' % (lo, hi, len(cs)))
    if name == 'io_range_thread' and (tid != main or t0 == '-'):
        bad.append('thread %d, range %s: want the main thread %d in a range' % (tid, t0, main))
    if name == 'io_thread_none' and (tid in (0, main) or t0 != '-'):
        bad.append('thread %d, range %s: want another thread than %d, no range' % (tid, t0, main))
    if name in ('io_clear', 'io_clear_live', 'io_thread_toggle') and (tid or t0 != '-'):
        bad.append('still filtered: thread %d, range %s' % (tid, t0))
    if name in live_cases[:2] and t0 != '-':
        bad.append("the page narrowed to the picked call's range")
    print(name, 'bad' if bad else 'ok', '; '.join(bad) if bad else
          'thread %d [%s, %s): %d of %d, as the report' % (tid, t0, t1, shown, alln))
PY
sed 's/^/# sel: /' "$TMP/sel.txt"
sel_of() { awk -v n="$1" '$1 == n { $1 = ""; print substr($0, 2); exit }' "$TMP/sel.txt"; }
set -- $oracle
o_ok=$1 o_n=${2:-} o_total=${3:-} o_max=${4:-} o_at=${5:-}
row=$(awk '$2 == "io-row" { print $4, $5 }' "$TMP/app.out")
root=$(awk '$2 == "io-flame-root" { print $3 }' "$TMP/app.out")
slowest=$(awk '$2 == "io-slowest" { print $3, $4 }' "$TMP/app.out")
for c in $CASES; do
	line=$(grep -aE "^(ok|not ok|skip) $c([: ]|\$)" "$TMP/app.out" | head -1)
	case $c in
	io_page)
		if [ "$o_ok" != ok ]; then
			fail io_page "the oracle: $oracle"
		elif [ "${line%% *}" = ok ] && [ "$row" = "$o_n $o_total" ] && [ "$root" = "$o_total" ]; then
			ok io_page
		else
			fail io_page "app: ${line:-nothing} row '$row' root '$root'; the report: $o_n calls, $o_total ns"
		fi
		;;
	io_click_slowest)
		set -- $slowest
		sel=$(sel_of "$c")
		if [ "${line%% *}" = ok ] && [ "${2:-}" = "$o_max" ] && [ "${sel%% *}" = ok ] &&
			python3 -c "import sys; sys.exit(abs(${1:-0} - ${o_at:-9}) > 2e-6)"; then
			ok io_click_slowest
		else
			fail io_click_slowest "app: ${line:-nothing}, slowest '$slowest'; the report's longest: $o_max ns at $o_at s; the page against the report: ${sel:-no io-sel line}"
		fi
		;;
	io_click_bar | io_clear_live | io_range | io_range_thread | io_clear | io_thread_none | io_thread_toggle)
		sel=$(sel_of "$c")
		if [ "${line%% *}" = ok ] && [ "${sel%% *}" = ok ]; then
			ok "$c"
		else
			fail "$c" "app: ${line:-nothing}; against the report: ${sel:-no io-sel line}"
		fi
		;;
	*)
		if [ -n "$line" ]; then echo "$line"; pl_reported[$c]=1; fi
		;;
	esac
done
grep -aE '^not ok screenshot' "$TMP/app.out"
[ $rc = 0 ] || echo "# the app exited $rc: $(tail -3 "$TMP/app.err" | tr '\n' ' ')"
