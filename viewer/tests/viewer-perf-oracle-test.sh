#!/usr/bin/env bash
# viewer-perf-oracle-test.sh — `perf` itself is the oracle: perf record -g
# of burn, then the top-20 self symbols of `perflens report perf.data` must
# be within 0.5 percentage points of `perf report --no-children --sort sym`
# (both directions: perf's top 20 looked up in ours and ours in perf's).
# Inline expansion is off (--no-inline) because perf's sym sort charges
# inlined code to the function it was inlined into.
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens BURN=$B/workloads/burn
NAME=perf_report_top20_self
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok perf_report_top20_self: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-oracle-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
pl_plan $NAME
# shellcheck source=../../test/tools/perf-oracle.sh
. "$(dirname "$0")/../../test/tools/perf-oracle.sh"

# perf (ci/deps.sh) and what make builds: their absence fails
command -v perf >/dev/null || { fail $NAME "perf not installed (linux-perf: ci/deps.sh)"; exit 1; }
[ -x "$PERFLENS" ] || { fail $NAME "$PERFLENS not built"; exit 1; }
[ -x "$BURN" ] || { fail $NAME "$BURN not built"; exit 1; }

if ! perf record -e cpu-clock -F 999 -g -o "$TMP/perf.data" -- "$BURN" 2 2 \
	>"$TMP/record.log" 2>&1; then
	if why=$(pl_perf_refused); then
		skip $NAME "$why"
		exit 0
	fi
	fail $NAME "perf record failed: $(grep -v '^\[' "$TMP/record.log" | head -1)"
	exit 1
fi
if ! "$PERFLENS" report "$TMP/perf.data" --no-inline --top 0 >"$TMP/ours.txt" 2>"$TMP/ours.err"; then
	fail $NAME "perflens report perf.data failed: $(head -c 300 "$TMP/ours.err")"
	exit 0
fi
oracle_perf_self "$TMP/perf.data" >"$TMP/perf.tsv"
oracle_ours_self "$TMP/ours.txt" >"$TMP/ours.tsv"

if [ ! -s "$TMP/perf.tsv" ] || [ ! -s "$TMP/ours.tsv" ]; then
	fail $NAME "empty table (perf: $(wc -l <"$TMP/perf.tsv") rows, ours: $(wc -l <"$TMP/ours.tsv") rows)"
	exit 0
fi

result=$(oracle_compare "$TMP/perf.tsv" "$TMP/ours.tsv" 20 0.5)
worst=${result%%$'\t'*}
bad=${result#*$'\t'}
if [ -n "$bad" ]; then
	fail $NAME "off by more than 0.5 points: $bad"
else
	ok $NAME
	echo "# worst difference $worst percentage points over the top-20 symbols of both"
fi
exit 0
