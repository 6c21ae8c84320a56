#!/usr/bin/env bash
# viewer-fleet-query-test.sh — what `perflens fleet` reads and writes: the
# per-minute rollup against every sample, and the exports through the
# viewer's own exporters.  Real agents profile real programs (the burn
# workload, Debian's bzip2) and report to `perflens collect`, which stores
# into Debian's real ClickHouse (18.16) started here by ci/clickhouse/server.sh.
#
#   rollup_equals_raw  fleet report and diff read from the per-minute
#       rollup (--rollup minutes, the materialized view) print what they
#       print from every sample (--rollup raw) for several --where and
#       --since; the rollup holds fewer rows than the samples; auto reads
#       the rollup for all time and the samples for --since 1h.
#   export_pprof       fleet export --format pprof: go tool pprof reads it,
#       and its flat samples per function equal fleet report's self samples.
#   export_svg         fleet export --format svg: a well-formed SVG without
#       script whose widest frame holds the report's total and whose
#       hot_leaf frames hold exactly the samples of the call paths to
#       hot_leaf (from fleet export's collapsed stacks) that are wide enough
#       to draw: the SVG leaves out frames narrower than 0.3 px of 1180.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-fleet-query: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
. "$TOP/viewer/tests/viewer-fleet-lib.sh" || { echo "not ok viewer-fleet-query: cannot read viewer/tests/viewer-fleet-lib.sh"; exit 1; }
fleet_begin fleetq

pl_plan rollup_equals_raw export_pprof export_svg
missing=""
for x in "$AGENT" "$PERFLENS" "$BURN"; do [ -x "$x" ] || missing="$x not built (make)"; done
for x in python3 curl bzip2 go; do command -v $x >/dev/null || missing="$x is not installed (ci/deps.sh)"; done
[ -z "$missing" ] || pl_fail_all "$missing"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

fleet_clickhouse
fleet_token
cat /usr/bin/bash /usr/bin/python3 2>/dev/null | head -c 3000000 >"$TMP/input"

fleet_collector "$TMP/collect.log"
fleet_agent 3.0.0 q1 "$BURN" 3 2
fleet_agent 3.0.1 q2 "$(command -v bzip2)" -9 -c "$TMP/input"
sleep 7
fleet_agents_stop
kill -TERM $COLLECT
wait $COLLECT || pl_fail_all "perflens collect exited $?: $(tail -c 400 "$TMP/collect.log")"
PIDS=()
fleet() { "$PERFLENS" fleet "$@" --clickhouse "$URL" --clickhouse-credentials "$CRED"; }

# ─── rollup_equals_raw ────────────────────────────────────────────────
c=rollup_equals_raw
bad=""
samples=$(sql "SELECT count() FROM perflens_samples")
rows=$(sql "SELECT count() FROM perflens_minutes")
for w in "fw=3.0.0" "fw=3.0.1" "board!=q1" "fw=3.0.0,board=q1"; do
	for since in "" "--since=1h" "--since=7d"; do
		# shellcheck disable=SC2086
		fleet report --where "$w" $since --top 0 --rollup raw >"$TMP/raw" 2>&1 ||
			{ bad="fleet report --rollup raw --where $w $since: $(head -c 200 "$TMP/raw")"; break 2; }
		# shellcheck disable=SC2086
		fleet report --where "$w" $since --top 0 --rollup minutes >"$TMP/min" 2>&1 ||
			{ bad="fleet report --rollup minutes --where $w $since: $(head -c 200 "$TMP/min")"; break 2; }
		sed -i 's/ (from the per-minute rollup)$//' "$TMP/min"
		cmp -s "$TMP/raw" "$TMP/min" ||
			{ bad="--where $w $since: the rollup and the samples differ: $(diff "$TMP/raw" "$TMP/min" | head -6 | tr '\n' '|')"; break 2; }
	done
done
if [ -z "$bad" ]; then
	fleet diff --where fw=3.0.0 --against fw=3.0.1 --top 0 --rollup raw >"$TMP/draw" 2>&1
	fleet diff --where fw=3.0.0 --against fw=3.0.1 --top 0 --rollup minutes >"$TMP/dmin" 2>&1
	cmp -s "$TMP/draw" "$TMP/dmin" || bad="fleet diff: the rollup and the samples differ: $(diff "$TMP/draw" "$TMP/dmin" | head -6 | tr '\n' '|')"
fi
if [ -z "$bad" ]; then
	fleet report --where fw=3.0.0 --top 1 | head -1 | grep -q 'per-minute rollup' ||
		bad="fleet report over all time did not read the rollup"
	fleet report --where fw=3.0.0 --top 1 --since 1h | head -1 | grep -q 'per-minute rollup' &&
		bad="fleet report --since 1h read the rollup"
	total=$(sed -n 's/^Fleet: \([0-9]*\) samples.*/\1/p' "$TMP/raw")
	[ "${total:-0}" -gt 0 ] || bad="no samples where fw=3.0.0,board=q1"
	[ "${rows:-0}" -gt 0 ] && [ "$rows" -lt "$samples" ] || bad="the rollup holds $rows rows for $samples samples"
fi
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; echo "# $samples samples, $rows rollup rows" >&2; fi

# ─── export_pprof ─────────────────────────────────────────────────────
c=export_pprof
bad=""
fleet report --where fw=3.0.0 --top 0 >"$TMP/report" 2>&1
if ! fleet export --where fw=3.0.0 --format pprof -o "$TMP/fleet.pb.gz" 2>"$TMP/pprof.err"; then
	bad="fleet export --format pprof failed: $(head -c 300 "$TMP/pprof.err")"
elif ! timeout 300 go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -sample_index=samples "$TMP/fleet.pb.gz" >"$TMP/top.txt" 2>"$TMP/top.err"; then
	bad="go tool pprof cannot read it: $(head -c 300 "$TMP/top.err")"
else
	bad=$(python3 - "$TMP/report" "$TMP/top.txt" <<'PY'
import re, sys
rep, top = open(sys.argv[1]).read(), open(sys.argv[2]).read()
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
want = {}
for line in rep.split('Top functions by self', 1)[1].split('\n')[2:]:
	r = row.match(line)
	if r and int(r.group(1)):
		want[r.group(2)] = want.get(r.group(2), 0) + int(r.group(1))
got = {}
for line in top.split('\n'):
	m = re.match(r'^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.*?)\s*$', line)
	if m and int(m.group(1)):
		got[m.group(2)] = int(m.group(1))
if not want:
	print('the report has no functions')
elif want != got:
	d = sorted(set(want) ^ set(got)) or [k for k in want if want[k] != got.get(k)]
	print('pprof and fleet report differ at %s: %s vs %s' % (d[:3], [want.get(k) for k in d[:3]], [got.get(k) for k in d[:3]]))
PY
)
fi
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── export_svg ───────────────────────────────────────────────────────
c=export_svg
bad=""
if ! fleet export --where fw=3.0.0 --format svg -o "$TMP/fleet.svg" 2>"$TMP/svg.err"; then
	bad="fleet export --format svg failed: $(head -c 300 "$TMP/svg.err")"
elif ! fleet export --where fw=3.0.0 -o "$TMP/fleet.collapsed" 2>"$TMP/col.err"; then
	bad="fleet export (collapsed) failed: $(head -c 300 "$TMP/col.err")"
else
	bad=$(python3 - "$TMP/fleet.svg" "$TMP/report" "$TMP/fleet.collapsed" <<'PY'
import re, sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
rep = open(sys.argv[2]).read()
total = int(re.search(r'^Fleet: (\d+) samples', rep, re.M).group(1))
m = re.search(r'^\s+([\d.]+)%\s+([\d.]+)%\s+\d+\s+hot_leaf\s', rep, re.M)
# Each call path to hot_leaf is one frame in the SVG, drawn when its samples
# make 0.3 px or more of the 1180 px a whole profile spans.
paths, once = {}, 0
for line in open(sys.argv[3]):
	stack, _, n = line.rstrip('\n').rpartition(' ')
	frames, seen = stack.split(';'), False
	for i, f in enumerate(frames):
		if f == 'hot_leaf' or f.startswith('hot_leaf '):
			key = tuple(frames[:i + 1])
			paths[key] = paths.get(key, 0) + int(n)
			seen = True
	once += int(n) if seen else 0
drawn = sum(v for v in paths.values() if v * 1180.0 / total >= 0.3)
try:
	root = E.parse(sys.argv[1]).getroot()
	assert root.tag == ns + 'svg', root.tag
	titles = [t.text for t in root.findall('.//' + ns + 'title')]
	counts = [int(x.group(1)) for x in (re.search(r' — (\d+) samples', t or '') for t in titles) if x]
	assert counts and max(counts) == total, 'widest frame %s, report total %d' % (max(counts or [0]), total)
	hot = sum(int(re.search(r' — (\d+) samples', t).group(1)) for t in titles if t.startswith('hot_leaf ['))
	assert m and hot > 0, 'no hot_leaf frame'
	assert abs(100.0 * once / total - float(m.group(2))) < 0.01, 'collapsed: hot_leaf in %d of %d, report total %s%%' % (once, total, m.group(2))
	assert hot == drawn, 'hot_leaf frames hold %d samples, the %d call paths wide enough to draw hold %d (all %d: %d)' % (hot, len(paths), drawn, len(paths), sum(paths.values()))
	assert not root.findall('.//' + ns + 'script')
except Exception as e:
	print('%r' % (e,))
PY
)
fi
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi
