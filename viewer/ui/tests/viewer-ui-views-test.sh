#!/usr/bin/env bash
# viewer-ui-views-test.sh — records two real captures with the real agent
# (burn as built, and the same burn.c built at -O0 for the diff) and runs
# viewer-ui-views-prog under Xvfb on them: the health graphs, the
# disassembly with per-instruction heat, the diff view and the thread
# details popover, the Interrupts and Block I/O pages (on hand-made
# messages), each checked through its widget API and photographed
# light and dark into $PL_UI_SCREENSHOTS (else a temporary directory).
#
# PL_AGENT is the agent under test (else the build's).  Cases skip only
# where the kernel refuses perf or no X server can start; every planned
# case is reported.
set -u
B=${PL_BUILD:-build}
AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn PROG=$B/test/viewer-ui-views-prog
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-views: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-views-XXXXXX)
cleanup() { pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT
CASES="health_graphs health_perf_data disassembly_hot_leaf diff_rows thread_details creation_pairing counters_switches dark_theme timeline_markers flame_roots_in_view irq_block_pages"
pl_plan $CASES
fail_all() { for c in $CASES; do fail "$c" "$1"; done; exit 1; }
skip_all() { for c in $CASES; do pl_was_reported "$c" || skip "$c" "$1"; done; exit 0; }

# make builds them and ci/deps.sh installs xvfb: their absence fails
[ -x "$PROG" ] || fail_all "$PROG not built"
[ -x "$AGENT" ] || fail_all "$AGENT not built"
[ -x "$BURN" ] || fail_all "$BURN not built"
command -v xvfb-run >/dev/null || fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
CC=${CC:-cc}
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
src=$top/test/workloads/burn.c
[ -f "$src" ] || src=test/workloads/burn.c
[ -f "$src" ] || fail_all "test/workloads/burn.c not found"

# the "other" build: the same program at -O0 (no inlining, slower leaf),
# named burn so its functions match by module
mkdir -p "$TMP/o0"
"$CC" -O0 -g -fno-omit-frame-pointer -pthread -o "$TMP/o0/burn" "$src" 2>"$TMP/cc.log" ||
	fail_all "cannot build burn.c at -O0: $(head -c 200 "$TMP/cc.log")"

record() { # out burn
	"$AGENT" --output "$1" --frequency 499 --duration 3 -- "$2" 3 2 >"$1.log" 2>&1 && return 0
	if why=$(pl_perf_refused); then skip_all "$why"; fi
	fail_all "the kernel allows perf, but $AGENT could not record: $(tail -c 300 "$1.log")"
}
record "$TMP/base.plens" "$BURN"
record "$TMP/other.plens" "$TMP/o0/burn"
# markers (issue 19): marks, 2 threads x 3 rounds, with include/perflens-marker.h
MARKS=$B/workloads/marks
[ -x "$MARKS" ] || fail_all "$MARKS not built"
"$AGENT" --output "$TMP/marks.plens" --markers -- "$MARKS" "$TMP/marks.expect" 2 3 \
	>"$TMP/marks.log" 2>&1 || fail_all "$AGENT --markers could not record: $(tail -c 300 "$TMP/marks.log")"

# perf.data, which has no HEALTH (the view must say so): health_perf_data
# skips only where the kernel refuses perf, and fails when perf record does
VIEWS_PERF= VIEWS_PERF_SKIP= VIEWS_PERF_FAIL=
if ! command -v perf >/dev/null; then
	VIEWS_PERF_FAIL="perf not installed (linux-perf: ci/deps.sh)"
elif timeout 60 perf record -q -e cpu-clock -F 499 -g -o "$TMP/perf.data" -- "$BURN" 2 2 \
	>"$TMP/perf.log" 2>&1; then
	VIEWS_PERF=$TMP/perf.data
elif why=$(pl_perf_refused); then
	VIEWS_PERF_SKIP=$why
else
	VIEWS_PERF_FAIL="perf record failed: $(head -c 300 "$TMP/perf.log")"
fi
export VIEWS_PERF VIEWS_PERF_SKIP VIEWS_PERF_FAIL

SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
mkdir -p "$SHOTS"
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1
# GSK's cairo renderer: under Xvfb, GL is Mesa's software rasterizer, which
# compiles its shaders on first use into a fresh cache: 21 s instead of 4
# to the first step on a loaded 2-core machine (measured 2026-11-25), time
# the steps below then lacked.  Our drawing is cairo either way.
export GSK_RENDERER=${GSK_RENDERER:-cairo}
# No leak check of the app: fontconfig's lifetime caches (thousands of
# blocks; a suppression would do) and, in some runs, one 128-byte block
# allocated by a library unloaded before LeakSanitizer runs, so that no
# suppression can name it (seen 2026-11-24; the library GDK loads and
# unloads here is Mesa's swrast_dri.so, for GLX).
# Last, so that it wins over test/run.sh's detect_leaks=1.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
VIEWS_BASE=$TMP/base.plens VIEWS_OTHER=$TMP/other.plens VIEWS_MARKS=$TMP/marks.plens VIEWS_BURN=$BURN PL_UI_SCREENSHOTS=$SHOTS \
	xvfb-run -a -s "-screen 0 1280x900x24" "$PROG" >"$TMP/prog.out" 2>"$TMP/prog.err"
rc=$?
pl_relay "$TMP/prog.out"
grep -a '^# ' "$TMP/prog.out"
cat "$TMP/prog.err" >&2
# xvfb-run says so when its X server does not start: the world lacks a
# display, the cases were never run
if grep -q 'Xvfb failed to start' "$TMP/prog.err"; then
	skip_all "[no-display] Xvfb failed to start: $(grep -m1 -v '^$' "$TMP/prog.err" | head -c 200)"
fi
pl_unreported "viewer-ui-views-prog exited $rc without reporting it: $(tail -c 300 "$TMP/prog.err" | tr '\n' '|')"
exit $rc
