#!/usr/bin/env bash
# viewer-fleet-devices-test.sh — the fleet asked per device: the devices
# ranked by one function's share of their samples (perflens fleet rank),
# the sessions one device stored (fleet sessions), and one of them opened
# as a recording (fleet report --session, what the app's Fleet page opens).
# Real agents profile real programs (the burn workload in two shapes,
# Debian's bzip2) with device labels and report to `perflens collect`,
# which stores into Debian's ClickHouse (viewer-fleet-lib.sh starts one)
# and keeps every session's file (--keep-sessions).  The oracles are
# `perflens report` and `perflens export --format collapsed` of those
# files, and ClickHouse itself asked with curl (which session is which
# device's).
#
#   rank_equals_reports  fleet rank --function hot_leaf --by device: every
#       device's samples, samples with hot_leaf innermost and with it
#       anywhere equal the sums over its sessions' files of their report's
#       total and hot_leaf self samples and of their collapsed stacks with
#       hot_leaf; its sessions are its files with samples; the order is by
#       total share, then self share, then name; bzip2's device is listed
#       with 0.
#   rank_rollup_equals_raw  the same rank read from the per-minute rollup
#       prints the same rows; --by board ranks the boards alike.
#   sessions_of_device  fleet sessions --where device=D lists exactly the
#       sessions ClickHouse holds for D, each with its file's sample count.
#   session_opened  fleet report --session S (the stored session made a
#       profile as the app opens it): its total is S's stored count and its
#       file's report total, and every function's self samples equal that
#       report's.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
PERFLENS=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-fleet-devices: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
. "$TOP/viewer/tests/viewer-fleet-lib.sh" || { echo "not ok viewer-fleet-devices: cannot read viewer/tests/viewer-fleet-lib.sh"; exit 1; }
fleet_begin fleetdev

pl_plan rank_equals_reports rank_rollup_equals_raw sessions_of_device session_opened
missing=""
for x in "$AGENT" "$PERFLENS" "$BURN"; do [ -x "$x" ] || missing="$x not built (make)"; done
for x in python3 curl bzip2; do command -v $x >/dev/null || missing="$x is not installed (ci/deps.sh)"; done
[ -z "$missing" ] || pl_fail_all "$missing"
if why=$(pl_perf_refused); then pl_skip_all "$why"; fi

fleet_clickhouse
fleet_token
cat /usr/bin/bash /usr/bin/python3 2>/dev/null | head -c 3000000 >"$TMP/input"
fleet_collector "$TMP/collect.log" 0 --keep-sessions "$TMP/keep"

agent() { # DEVICE BOARD COMMAND...
	local device=$1 board=$2
	shift 2
	"$AGENT" --server "127.0.0.1:$PORT" --token-file "$TMP/token" --label fw=4.0 \
		--label "board=$board" --label "device=$device" --session-period 2 -F 499 -g -- "$@" \
		>/dev/null 2>"$TMP/$device.log" &
	PIDS+=($!)
}
# three shares of hot_leaf: burn alone, burn spawning threads, none (bzip2)
agent d1 kb1 "$BURN" 3 1
agent d2 kb1 "$BURN" --spawn-every 5 3 2
agent d3 kb2 "$(command -v bzip2)" -9 -c "$TMP/input"
sleep 7
for p in "${PIDS[@]}"; do [ "$p" = "$COLLECT" ] || { kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; }; done
kill -TERM $COLLECT
wait $COLLECT || pl_fail_all "perflens collect exited $?: $(tail -c 400 "$TMP/collect.log")"
PIDS=()
fleet() { "$PERFLENS" fleet "$@" --clickhouse "$URL" --clickhouse-credentials "$CRED"; }

# the oracles: each kept session's report and collapsed stacks, and its
# device as ClickHouse holds it
for f in "$TMP"/keep/*.plens; do
	[ -e "$f" ] || pl_fail_all "no session was kept: $(tail -c 300 "$TMP/collect.log")"
	"$PERFLENS" report --top 0 "$f" >"$f.report" 2>"$f.err" ||
		pl_fail_all "perflens report $f failed: $(head -c 200 "$f.err")"
	"$PERFLENS" export --format collapsed -o "$f.collapsed" "$f" 2>"$f.err" ||
		pl_fail_all "perflens export $f failed: $(head -c 200 "$f.err")"
done
sql "SELECT DISTINCT name, labels.value[indexOf(labels.key, 'device')], labels.value[indexOf(labels.key, 'board')] FROM perflens_sessions WHERE session IN (SELECT session FROM perflens_samples) ORDER BY name FORMAT TabSeparated" >"$TMP/devices" ||
	pl_fail_all "ClickHouse did not say which session is which device's"

oracle() { # KEY (device|board): the rank's rows as the files say, sorted as rank sorts
	python3 - "$1" "$TMP/devices" "$TMP"/keep/*.plens <<'PY'
import re, sys
from fractions import Fraction
key, devfile, files = sys.argv[1], sys.argv[2], sys.argv[3:]
col = 1 if key == 'device' else 2
dev = {}
for line in open(devfile):
    p = line.rstrip('\n').split('\t')
    dev[p[0]] = p[col]
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
acc = {}
for f in files:
    s = f.rsplit('/', 1)[1][:-len('.plens')]
    text = open(f + '.report').read()
    m = re.search(r'^Top functions by self \(([^;]*); % of (\d+) samples', text, re.M)
    if s not in dev or not m or m.group(1) == 'all events' or int(m.group(2)) == 0:
        continue  # no sampled event has a sample: the store keeps none of it
    a = acc.setdefault(dev[s], [0, 0, 0, 0])
    a[0] += int(m.group(2)); a[3] += 1
    for line in text.split('Top functions by self', 1)[1].split('\n')[2:]:
        if not line.strip():
            break
        r = row.match(line)
        if r and r.group(2) == 'hot_leaf':
            a[1] += int(r.group(1))
    for line in open(f + '.collapsed'):
        stack, _, n = line.rstrip('\n').rpartition(' ')
        if 'hot_leaf' in stack.split(';'):
            a[2] += int(n)
rows = sorted(acc.items(), key=lambda kv: (-Fraction(kv[1][2], kv[1][0]), -Fraction(kv[1][1], kv[1][0]), kv[0]))
for d, (n, s, t, k) in rows:
    print(n, t, s, k, d)
PY
}
rank_rows() { # FILE: fleet rank's rows as "SAMPLES WITH INNERMOST SESSIONS VALUE"
	awk '/^ +[0-9.]+% +[0-9.]+% / { print $3, $4, $5, $6, $7 }' "$1"
}

# ─── rank_equals_reports ──────────────────────────────────────────────
c=rank_equals_reports
oracle device >"$TMP/want.device"
if ! fleet rank --function hot_leaf --by device --top 0 --rollup raw >"$TMP/rank.raw" 2>&1; then
	fail $c "fleet rank failed: $(head -c 300 "$TMP/rank.raw")"
else
	rank_rows "$TMP/rank.raw" >"$TMP/got.device"
	d3=$(awk '$5 == "d3" { print $2 }' "$TMP/got.device")
	if ! cmp -s "$TMP/want.device" "$TMP/got.device"; then
		fail $c "fleet rank and the sessions' reports differ: $(diff "$TMP/want.device" "$TMP/got.device" | head -8 | tr '\n' '|')"
	elif [ "$(wc -l <"$TMP/got.device")" != 3 ] || [ "$d3" != 0 ]; then
		fail $c "3 devices expected, bzip2's (d3) without hot_leaf: $(tr '\n' '|' <"$TMP/got.device")"
	elif [ "$(awk '$2 > 0' "$TMP/got.device" | wc -l)" != 2 ]; then
		fail $c "both burn devices should have hot_leaf: $(tr '\n' '|' <"$TMP/got.device")"
	else
		ok $c
		echo "# rank (samples, with hot_leaf, innermost, sessions, device): $(tr '\n' '|' <"$TMP/got.device")" >&2
	fi
fi

# ─── rank_rollup_equals_raw ───────────────────────────────────────────
c=rank_rollup_equals_raw
bad=""
fleet rank --function hot_leaf --top 0 --rollup minutes >"$TMP/rank.min" 2>&1 ||
	bad="fleet rank --rollup minutes failed: $(head -c 300 "$TMP/rank.min")"
if [ -z "$bad" ]; then
	sed -i 's/ (from the per-minute rollup)$//' "$TMP/rank.min"
	cmp -s "$TMP/rank.raw" "$TMP/rank.min" ||
		bad="the rollup and the samples rank differently: $(diff "$TMP/rank.raw" "$TMP/rank.min" | head -6 | tr '\n' '|')"
fi
if [ -z "$bad" ]; then
	oracle board >"$TMP/want.board"
	if fleet rank --function hot_leaf --by board --top 0 >"$TMP/rank.board" 2>&1; then
		rank_rows "$TMP/rank.board" >"$TMP/got.board"
		cmp -s "$TMP/want.board" "$TMP/got.board" ||
			bad="--by board: fleet rank and the reports differ: $(diff "$TMP/want.board" "$TMP/got.board" | head -6 | tr '\n' '|')"
	else
		bad="fleet rank --by board failed: $(head -c 300 "$TMP/rank.board")"
	fi
fi
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── sessions_of_device ───────────────────────────────────────────────
c=sessions_of_device
bad=""
for d in d1 d2 d3; do
	want=$(awk -F'\t' -v d=$d '$2 == d { print $1 }' "$TMP/devices" | sort)
	if ! fleet sessions --where device=$d --top 0 --rollup raw >"$TMP/sessions.$d" 2>&1; then
		bad="fleet sessions failed: $(head -c 300 "$TMP/sessions.$d")"
		break
	fi
	# "  DATE TIME  DATE TIME  SAMPLES  SESSION  LABELS"
	got=$(awk '/^  [0-9][0-9][0-9][0-9]-/ { print $6 }' "$TMP/sessions.$d" | sort)
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		{ bad="device $d: ClickHouse holds sessions '$(echo $want)', fleet sessions lists '$(echo $got)'"; break; }
	while read -r n s; do
		fn=$(sed -n 's/^Top functions by self ([^;]*; % of \([0-9]*\) samples.*/\1/p' "$TMP/keep/$s.plens.report")
		[ "$n" = "$fn" ] || { bad="session $s: fleet sessions says $n samples, its file's report $fn"; break 2; }
	done < <(awk '/^  [0-9][0-9][0-9][0-9]-/ { print $5, $6 }' "$TMP/sessions.$d")
	grep -q "device=$d" "$TMP/sessions.$d" || { bad="device $d's sessions are listed without its label"; break; }
done
if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; fi

# ─── session_opened ───────────────────────────────────────────────────
c=session_opened
s=$(awk -F'\t' '$2 == "d2" { print $1 }' "$TMP/devices" | head -1)
stored=$(sql "SELECT count() FROM perflens_samples WHERE session IN (SELECT session FROM perflens_sessions WHERE name = '$s')")
if [ -z "$s" ]; then
	fail $c "device d2 has no stored session"
elif ! fleet report --session "$s" --top 0 >"$TMP/opened" 2>&1; then
	fail $c "fleet report --session $s failed: $(head -c 300 "$TMP/opened")"
else
	bad=$(python3 - "$TMP/opened" "$TMP/keep/$s.plens.report" "$stored" <<'PY'
import re, sys
got, rep, stored = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3])
row = re.compile(r'^\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+(.*?)\s{2,}(\S+)')
def rows(text):
    out = {}
    for line in text.split('Top functions by self', 1)[1].split('\n')[2:]:
        if not line.strip():
            break
        r = row.match(line)
        if r and int(r.group(1)):
            k = (r.group(2), r.group(3))
            out[k] = out.get(k, 0) + int(r.group(1))
    return out
total = int(re.search(r'^Session \S+: (\d+) samples', got, re.M).group(1))
want = int(re.search(r'^Top functions by self \([^;]*; % of (\d+) samples', rep, re.M).group(1))
a, b = rows(rep), rows(got)
if total != stored or total != want:
    print('the opened session holds %d samples, ClickHouse %d, its file\'s report %d' % (total, stored, want))
elif a != b:
    d = sorted(set(a) ^ set(b)) or [k for k in a if a[k] != b.get(k)]
    print('functions differ at %s: report %s, opened %s' % (d[:3], [a.get(k) for k in d[:3]], [b.get(k) for k in d[:3]]))
PY
)
	if [ -n "$bad" ]; then fail $c "$bad"; else ok $c; echo "# session $s: $stored samples" >&2; fi
fi
