#!/usr/bin/env bash
# viewer-ui-fleet-test.sh — the app's Fleet page (issue 29) against
# `perflens fleet` on the same store: real agents (the burn workload, two
# firmware labels) report to `perflens collect`, which stores into
# Debian's real ClickHouse (viewer/tests/viewer-fleet-lib.sh starts one on
# loopback); the app (under Xvfb, driven by
# viewer/ui/tests/pl-ui-script-fleet.c) fills the page's form and clicks
# Show:
#   fleet_show          fw=2.3.0 alone: the page answers with samples
#   fleet_rows_a        its Functions page has rows
#   fleet_compare       fw=2.3.0 compared with fw=2.3.1: answered
#   fleet_diff_rows     the diff is shown and has rows
#   fleet_pick          a click on "fw=2.3.1" among the store's labels
#                       listed under the form puts it into Labels
#   fleet_picked        Show again: the page answers for fw=2.3.1
#   fleet_totals        the page's totals of A and B (each Show) equal the
#                       totals of fleet report --where fw=2.3.0 and fw=2.3.1
#   fleet_labels        the labels the page lists are the stored samples'
#                       (ClickHouse asked with curl: every KEY=VALUE in
#                       perflens_sessions of the stored samples)
#   fleet_functions     every function's self samples on the Functions page
#                       equal fleet report's (name, module and count, both
#                       ways)
#   fleet_diff          every function's change of self share in the page's
#                       diff equals fleet diff's Δ (to its 0.01 points)
#   fleet_all           every label (Labels emptied): answered
#   fleet_rank          hot_leaf's row of its Functions page activated: the
#                       Boards page ranks the devices by its share
#   fleet_rank_cli      those rows (samples, with it, innermost, sessions,
#                       device) equal fleet rank --function 'hot_leaf burn'
#   fleet_open          device b2's row activated lists its sessions (each
#                       with ClickHouse's count of it, asked with curl), and
#                       the first one's Open shows it in a new window
#   fleet_open_totals   that window's profile holds the session's stored
#                       sample count, all of them shown
#   fleet_rank_shown    the rows the Boards page shows, read as text (both
#                       shares to 0.01 %, samples, with it, innermost,
#                       sessions, device), equal fleet rank's rows, in its
#                       order
#   fleet_sessions_of   "device=b1" typed into Sessions of, List sessions:
#                       the sessions listed (name, samples, first and last
#                       sample to the second, oldest first) equal fleet
#                       sessions --where device=b1 --rollup raw, and each
#                       row shows its time, length and samples
#   fleet_open_functions  the opened session's window: its total and every
#                       function's self samples equal fleet report
#                       --session's and those of perflens report on the
#                       session's file the collector kept (--keep-sessions)
#   fleet_bad_labels    "fw=" (no value): the page says where and why
#   fleet_store_down    a URL where no server answers: the page says so
# Screenshots ($PL_UI_SCREENSHOTS, else a temporary directory):
# fleet-flame.png, fleet-functions.png, fleet-diff.png, fleet-boards.png,
# fleet-boards-sessions.png, fleet-error.png.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
DRIVER=$B/test/perflens-ui-script.so
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-ui-fleet: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
. "$TOP/viewer/tests/viewer-fleet-lib.sh" || { echo "not ok viewer-ui-fleet: cannot read viewer/tests/viewer-fleet-lib.sh"; exit 1; }
fleet_begin uifleet
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}

pl_plan fleet_show fleet_rows_a fleet_compare fleet_diff_rows fleet_pick fleet_picked \
	fleet_totals fleet_labels fleet_functions fleet_diff fleet_all fleet_rank fleet_rank_cli \
	fleet_rank_shown fleet_sessions_of fleet_open fleet_open_totals fleet_open_functions \
	fleet_bad_labels fleet_store_down
missing=""
for x in "$AGENT" "$PERFLENS" "$BURN"; do [ -x "$x" ] || missing="$x not built (make)"; done
[ -f "$DRIVER" ] || missing="$DRIVER not built (make)"
for x in python3 curl xvfb-run; do command -v $x >/dev/null || missing="$x is not installed (ci/deps.sh)"; done
[ -z "$missing" ] || pl_fail_all "$missing"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

fleet_clickhouse
fleet_token
fleet_collector "$TMP/collect.log" 0 --keep-sessions "$TMP/keep"
# two firmwares of one program: 2.3.1 also spawns threads (spawn_worker)
fleet_agent 2.3.0 b1 "$BURN" 3 1
fleet_agent 2.3.1 b2 "$BURN" --spawn-every 5 3 2
sleep 7
fleet_agents_stop
kill -TERM $COLLECT
wait $COLLECT || pl_fail_all "perflens collect exited $?: $(tail -c 400 "$TMP/collect.log")"
PIDS=()
fleet() { "$PERFLENS" fleet "$@" --clickhouse "$URL" --clickhouse-credentials "$CRED"; }
fleet report --where fw=2.3.0 --top 0 >"$TMP/rep-a" 2>&1 || pl_fail_all "fleet report: $(head -c 300 "$TMP/rep-a")"
fleet report --where fw=2.3.1 --top 0 >"$TMP/rep-b" 2>&1 || pl_fail_all "fleet report: $(head -c 300 "$TMP/rep-b")"
fleet diff --where fw=2.3.0 --against fw=2.3.1 --top 0 >"$TMP/diff" 2>&1 || pl_fail_all "fleet diff: $(head -c 300 "$TMP/diff")"
fleet rank --function 'hot_leaf burn' --top 0 >"$TMP/rank" 2>&1 || pl_fail_all "fleet rank: $(head -c 300 "$TMP/rank")"
fleet sessions --where device=b1 --top 0 --rollup raw >"$TMP/sessions-b1" 2>&1 ||
	pl_fail_all "fleet sessions: $(head -c 300 "$TMP/sessions-b1")"
sql "SELECT name, c FROM (SELECT session, count() AS c FROM perflens_samples GROUP BY session) ANY LEFT JOIN (SELECT session, any(name) AS name FROM perflens_sessions GROUP BY session) USING session FORMAT TabSeparated" >"$TMP/counts" ||
	pl_fail_all "ClickHouse did not count the sessions"
sql "SELECT DISTINCT concat(k, '=', v) AS l FROM perflens_sessions ARRAY JOIN labels.key AS k, labels.value AS v WHERE session IN (SELECT session FROM perflens_samples) ORDER BY l" >"$TMP/labels" ||
	pl_fail_all "ClickHouse did not list the labels"

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
mkdir -p "$SHOTS"
cat >"$TMP/fleet.script" <<EOS
fleet-show $URL $CRED fw=2.3.0 - - fleet_show
fleet-dump fleet_rows_a
fleet-page flame
screenshot $SHOTS/fleet-flame.png
fleet-page functions
screenshot $SHOTS/fleet-functions.png
fleet-show $URL $CRED fw=2.3.0 fw=2.3.1 - fleet_compare
fleet-diff-dump fleet_diff_rows
screenshot $SHOTS/fleet-diff.png
fleet-pick fw=2.3.1 fleet_pick
fleet-show = = = - - fleet_picked
fleet-show = = - - - fleet_all
fleet-rank hot_leaf fleet_rank
screenshot $SHOTS/fleet-boards.png
fleet-sessions-of device=b1 fleet_sessions_of
screenshot $SHOTS/fleet-boards-sessions.png
fleet-open b2 fleet_open
expect-fleet-error $URL $CRED fw= value fleet_bad_labels
expect-fleet-error http://127.0.0.1:1 $CRED fw=2.3.0 answer fleet_store_down
screenshot $SHOTS/fleet-error.png
EOS
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/fleet.script \
	timeout 200 xvfb-run -a -s '-screen 0 1600x1000x24' "$PERFLENS" >"$TMP/app.out" 2>"$TMP/app.err"
rc=$?
pl_no_display "$TMP/app.err"
if grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$TMP/app.err"; then
	pl_fail_all "exit $rc: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$TMP/app.err" | tr '\n' '|' | head -c 1500)"
fi
grep -aE '^# fleet (total|error|where)' "$TMP/app.out"
pl_relay "$TMP/app.out"

# ─── the page against fleet report and fleet diff ────────────────────
python3 - "$TMP/app.out" "$TMP/rep-a" "$TMP/rep-b" "$TMP/diff" "$TMP/labels" >"$TMP/cmp" <<'PY'
import re, sys
out = open(sys.argv[1], errors='replace').read().split('\n')
def total(path):
    m = re.search(r'^Fleet: (\d+) samples', open(path).read(), re.M)
    return int(m.group(1)) if m else None
ta, tb = total(sys.argv[2]), total(sys.argv[3])
totals = {l.split()[3]: (int(l.split()[4]), int(l.split()[5]))
          for l in out if l.startswith('# fleet total ')}
want_t = {'fleet_show': (ta, 0), 'fleet_compare': (ta, tb), 'fleet_picked': (tb, 0),
          'fleet_all': (ta + tb, 0) if ta and tb else None}
res = {}
if totals == want_t and ta and tb:
    res['fleet_totals'] = 'ok'
else:
    res['fleet_totals'] = 'the page says %s, fleet report says %s' % (totals, want_t)
shown = [l[len('# fleet labels '):].split() for l in out if l.startswith('# fleet labels')]
stored = open(sys.argv[5]).read().split()
if shown and shown[0] == stored and 'fw=2.3.1' in stored and 'board=b2' in stored:
    res['fleet_labels'] = 'ok'
else:
    res['fleet_labels'] = 'the page lists %s, the samples hold %s' % (shown[:1], stored)
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)$')
want = {}
for line in open(sys.argv[2]).read().split('Top functions by self', 1)[-1].split('\n')[2:]:
    r = row.match(line)
    if r and int(r.group(1)):
        want[(r.group(2), r.group(3))] = int(r.group(1))
got = {}
for l in out:
    if l.startswith('# fleet-row '):
        counts, name, module = l[len('# fleet-row '):].split('\t')
        if int(counts.split()[0]):
            got[(name, module)] = got.get((name, module), 0) + int(counts.split()[0])
if want and want == got:
    res['fleet_functions'] = 'ok'
else:
    d = sorted(set(want) ^ set(got)) or [k for k in want if want[k] != got.get(k)]
    res['fleet_functions'] = '%d report rows, %d page rows; differ at %s: report %s, page %s' % (
        len(want), len(got), d[:3], [want.get(k) for k in d[:3]], [got.get(k) for k in d[:3]])
drow = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+([+-][\d.]+)\s+[\d.]+%\s+[\d.]+%\s+[+-][\d.]+\s+(.*) \[(.*)\]( \((new|gone)\))?$')
dwant, names = {}, {}
for line in open(sys.argv[4]):
    r = drow.match(line.rstrip('\n'))
    if r:
        names[r.group(2)] = names.get(r.group(2), 0) + 1
        dwant[r.group(2)] = float(r.group(1))
dgot = {}
for l in out:
    if l.startswith('# fleet-diff '):
        delta, label = l[len('# fleet-diff '):].split('\t', 1)
        dgot[label] = float(delta)
# a name in two modules is two rows of fleet diff: compared only when one
bad = [(k, v, dgot.get(k)) for k, v in dwant.items()
       if names[k] == 1 and (k not in dgot or abs(dgot[k] - v) > 0.0051)]
extra = [k for k in dgot if k not in dwant]
if dwant and not bad and not extra:
    res['fleet_diff'] = 'ok'
else:
    res['fleet_diff'] = '%d fleet diff rows, %d page rows; differ (name, fleet diff, page): %s; only on the page: %s' % (
        len(dwant), len(dgot), bad[:4], extra[:4])
for k, v in res.items():
    print('%s %s' % (k, v))
PY
# ─── the Boards page against fleet rank, the opened session against ClickHouse
c=fleet_rank_cli
want=$(awk '/^ +[0-9.]+% +[0-9.]+% / { print $3, $4, $5, $6, $7 }' "$TMP/rank")
got=$(sed -n 's/^# fleet-rank-row //p' "$TMP/app.out")
if [ -n "$want" ] && [ "$want" = "$got" ]; then ok $c
else fail $c "the page ranks '$(echo "$got" | tr '\n' '|')', fleet rank '$(echo "$want" | tr '\n' '|')'"; fi
c=fleet_open_totals
bad=""
listed=$(sed -n 's/^# fleet-session //p' "$TMP/app.out")
[ -n "$listed" ] || bad="no session was listed"
while read -r s n; do
	[ -n "$s" ] || continue
	stored=$(awk -F'\t' -v s="$s" '$1 == s { print $2 }' "$TMP/counts")
	[ "$n" = "$stored" ] || { bad="session $s: the page lists $n samples, ClickHouse holds ${stored:-none}"; break; }
	grep -q "^$s[[:space:]]" "$TMP/counts" || bad="session $s is not in the store"
done <<<"$listed"
read -r os on oshown <<<"$(sed -n 's/^# fleet-opened //p' "$TMP/app.out")"
stored=$(awk -F'\t' -v s="$os" '$1 == s { print $2 }' "$TMP/counts")
[ -n "$bad" ] || [ -n "$os" ] || bad="no session was opened"
[ -n "$bad" ] || { [ "$on" = "$stored" ] && [ "$oshown" = "$stored" ]; } ||
	bad="session $os: its window's profile holds $on samples ($oshown shown), ClickHouse ${stored:-none}"
b2=$(sql "SELECT uniqExact(session) FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE labels.value[indexOf(labels.key, 'device')] = 'b2')")
[ -n "$bad" ] || [ "$(echo "$listed" | grep -c .)" = "$b2" ] ||
	bad="the page lists $(echo "$listed" | grep -c .) sessions of b2, ClickHouse holds $b2"
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; echo "# opened $os: $on samples" >&2; fi

# ─── the rows as shown, the sessions typed, the opened session's functions
c=fleet_rank_shown
bad=$(python3 - "$TMP/app.out" "$TMP/rank" <<'PY'
import re, sys
shown = re.compile(r'^\s*([\d.]+)% total\s+([\d.]+)% self\s+of\s+([\d,]+) samples\s+([\d,]+) with it'
                   r'\s+([\d,]+) innermost\s+(\d+) sessions\s+device=(.*)$')
num = lambda t: int(t.replace(',', ''))
got, unread = [], []
for l in open(sys.argv[1], errors='replace').read().split('\n'):
    if l.startswith('# fleet-rank-shown '):
        m = shown.match(l[len('# fleet-rank-shown '):])
        if not m:
            unread.append(l)
            continue
        v = m.group(7)
        got.append((m.group(1), m.group(2), num(m.group(3)), num(m.group(4)), num(m.group(5)),
                    int(m.group(6)), '(no such label)' if v == '(none)' else v))
cli = re.compile(r'^\s+([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(.*)$')
want = []
for l in open(sys.argv[2]).read().split('\n'):
    m = cli.match(l)
    if m:
        want.append((m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)),
                     int(m.group(6)), m.group(7)))
if unread:
    print('a row reads unlike the others: %s' % unread[0])
elif not want or got != want:
    print('the page shows %s, fleet rank prints %s' % (got, want))
PY
)
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

c=fleet_sessions_of
bad=$(python3 - "$TMP/app.out" "$TMP/sessions-b1" <<'PY'
import re, sys, datetime
out = open(sys.argv[1], errors='replace').read().split('\n')
utc = lambda t: datetime.datetime.fromtimestamp(int(t), datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S')
got = [tuple(l.split()[2:6]) for l in out if l.startswith('# fleet-sessions-of ')]
got = [(s, int(n), utc(a), utc(b)) for s, n, a, b in got]
rows = [l[len('# fleet-sessions-shown '):] for l in out if l.startswith('# fleet-sessions-shown ')]
want = []
for l in open(sys.argv[2]).read().split('\n'):
    m = re.match(r'^  (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)  (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s+(\d+)  (\S+)  (.*)$', l)
    if m:
        want.append((m.group(4), int(m.group(3)), m.group(1), m.group(2)))
if not want or got != want:
    print('the page lists %s, fleet sessions %s' % (got[:4], want[:4]))
elif any('device=b2' in l for l in open(sys.argv[2])):
    print('fleet sessions --where device=b1 lists a session of b2')
else:
    for (s, n, a, b), r in zip(got, rows + [''] * len(got)):
        # "DAY TIME – TIME UTC  LENGTH  N samples  SESSION"
        if not (r.startswith(a + ' – ' + b[11:] + ' UTC') and re.search(r'\b%d samples\s+%s$' % (n, re.escape(s)), r)
                and re.search(r' UTC\s+\d+ (s|min \d\d s|h \d\d min)\s', r)):
            print('session %s (%s – %s, %d samples) is shown as %r' % (s, a, b, n, r))
            break
PY
)
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

c=fleet_open_functions
os=$(sed -n 's/^# fleet-opened \([^ ]*\) .*/\1/p' "$TMP/app.out")
if [ -z "$os" ]; then
	fail $c "no session was opened"
elif ! fleet report --session "$os" --top 0 >"$TMP/opened" 2>&1; then
	fail $c "fleet report --session $os failed: $(head -c 300 "$TMP/opened")"
elif [ ! -f "$TMP/keep/$os.plens" ]; then
	fail $c "the collector kept no file of session $os: $(ls "$TMP/keep" | head -5 | tr '\n' ' ')"
elif ! "$PERFLENS" report --top 0 "$TMP/keep/$os.plens" >"$TMP/opened-file" 2>&1; then
	fail $c "perflens report of the kept $os.plens failed: $(head -c 300 "$TMP/opened-file")"
else
	bad=$(python3 - "$TMP/app.out" "$TMP/opened" "$TMP/opened-file" <<'PY'
import re, sys
out = open(sys.argv[1], errors='replace').read().split('\n')
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
def rows(text):
    acc = {}
    for line in text.split('Top functions by self', 1)[1].split('\n')[2:]:
        if not line.strip():
            break
        r = row.match(line)
        if r and int(r.group(1)):
            k = (r.group(2), r.group(3))
            acc[k] = acc.get(k, 0) + int(r.group(1))
    return acc
page = {}
for l in out:
    if l.startswith('# fleet-opened-fn '):
        n, name, module = l[len('# fleet-opened-fn '):].split('\t')
        page[(name, module)] = page.get((name, module), 0) + int(n)
total = int(next(l.split()[3] for l in out if l.startswith('# fleet-opened ')))
rep, fil = open(sys.argv[2]).read(), open(sys.argv[3]).read()
t_rep = int(re.search(r'^Session \S+: (\d+) samples', rep, re.M).group(1))
t_fil = int(re.search(r'^Top functions by self \([^;]*; % of (\d+) samples', fil, re.M).group(1))
a, b = rows(rep), rows(fil)
if not (total == t_rep == t_fil):
    print("the window shows %d samples, fleet report --session %d, the kept file's report %d" % (total, t_rep, t_fil))
else:
    for what, want in (('fleet report --session', a), ("the kept file's report", b)):
        if page != want:
            d = sorted(set(page) ^ set(want)) or [k for k in page if page[k] != want.get(k)]
            print('%d window functions, %d of %s; differ at %s: %s %s, window %s' % (
                len(page), len(want), what, d[:3], what, [want.get(k) for k in d[:3]], [page.get(k) for k in d[:3]]))
            break
PY
)
	if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; echo "# opened $os: $(grep -c '^# fleet-opened-fn ' "$TMP/app.out") functions with self samples" >&2; fi
fi

for c in fleet_totals fleet_labels fleet_functions fleet_diff; do
	line=$(grep "^$c " "$TMP/cmp")
	why=${line#"$c "}
	if [ "$why" = ok ]; then ok $c; else fail $c "${why:-no comparison: $(tail -c 300 "$TMP/cmp")}"; fi
done
[ $rc = 0 ] || echo "# the app exited $rc: $(tail -3 "$TMP/app.err" | tr '\n' ' ')"
