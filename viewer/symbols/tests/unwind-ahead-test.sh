#!/usr/bin/env bash
# unwind-ahead-test.sh — `perflens report` of a --call-graph dwarf perf.data
# unwinds on a second thread ahead of the model (pl-unwind-ahead.c); the
# report must be byte for byte the one the model's own unwinding gives
# (PERFLENS_NO_UNWIND_AHEAD=1), inline frames, source lines and the
# quality counts included, and the worker must really have answered.
# Skipped only where the kernel refuses perf events; perf or a build
# product missing, or perf record failing, is a failure.
set -u
B=${PL_BUILD:-build}
PERFLENS=$B/perflens BURN=$B/workloads/burn-nofp
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok report_same_with_unwind_ahead: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plsym-ahead-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
# decompressed debug files go to a cache of this test's own, not the user's
export XDG_CACHE_HOME="$TMP/xdg"

ARGS=("--top 0" "--top 0 --lines --no-inline" "--top 0 --sort total")
CASES=()
for args in "${ARGS[@]}"; do CASES+=("report_same_with_unwind_ahead ($args)"); done
pl_plan "${CASES[@]}"
fail_all() { for c in "${CASES[@]}"; do fail "$c" "$1"; done; exit 1; }

# perf (ci/deps.sh) and what make builds: their absence fails
command -v perf >/dev/null || fail_all "perf not installed (linux-perf: ci/deps.sh)"
[ -x "$PERFLENS" ] && [ -x "$BURN" ] || fail_all "$PERFLENS or $BURN not built (make)"
if ! perf record -e cpu-clock -F 999 --call-graph dwarf,4096 -o "$TMP/perf.data" -- "$BURN" 1 2 \
	>"$TMP/record.log" 2>&1; then
	if why=$(pl_perf_refused); then
		for c in "${CASES[@]}"; do skip "$c" "$why"; done
		exit 0
	fi
	fail_all "perf record failed: $(grep -v '^\[' "$TMP/record.log" | head -1)"
fi

for args in "${ARGS[@]}"; do
	name="report_same_with_unwind_ahead ($args)"
	# shellcheck disable=SC2086
	PERFLENS_DEBUG_AHEAD=1 "$PERFLENS" report "$TMP/perf.data" $args >"$TMP/ahead.txt" 2>"$TMP/ahead.err"
	# shellcheck disable=SC2086
	PERFLENS_NO_UNWIND_AHEAD=1 "$PERFLENS" report "$TMP/perf.data" $args >"$TMP/own.txt" 2>"$TMP/own.err"
	used=$(sed -n 's/.*unwind ahead: \([0-9]*\) used.*/\1/p' "$TMP/ahead.err")
	if ! cmp -s "$TMP/ahead.txt" "$TMP/own.txt"; then
		fail "$name" "reports differ: $(diff "$TMP/own.txt" "$TMP/ahead.txt" | head -5 | tr '\n' ' ')"
	elif [ -z "$used" ] || [ "$used" -eq 0 ]; then
		fail "$name" "the worker answered no sample ($(tr '\n' ' ' <"$TMP/ahead.err"))"
	elif ! grep -q 'hot_leaf' "$TMP/own.txt"; then
		fail "$name" "hot_leaf missing from the report"
	else
		ok "$name"
		echo "# $used samples unwound ahead"
	fi
done
exit 0
