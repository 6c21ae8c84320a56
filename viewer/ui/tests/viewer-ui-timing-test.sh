#!/usr/bin/env bash
# viewer-ui-timing-test.sh — the app's own timing lines (PERFLENS_TIMING=1,
# viewer/ui/pl-ui-timing.h), which bench/scale-app-interact.sh reads, in the
# real GTK app under Xvfb on a real recording of burn made by the agent:
# each action the bench times (a time range picked in the heatmap, a thread
# picked as a click on its name does, a search, a transform pushed and
# removed, the Functions table sorted as a click on a column title does,
# a function's source opened) prints its "recompute WHAT MS" line, the
# frames name the views they drew (the flame graph, the heatmap), and
# without the variable the app prints none of it.  Never a duration
# checked: only that each line comes, well formed.  The app is driven by
# the test-only script module ($B/test/perflens-ui-script.so,
# pl-ui-script.h).  Cases skip only where the kernel refuses perf or no X
# server can start; PL_AGENT is the agent.
set -u
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
DRIVER=$B/test/perflens-ui-script.so
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-timing: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-timing-XXXXXX)
cleanup() { pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT

ACTIONS="range thread search transform functions source"
CASES="open"
for a in $ACTIONS; do CASES="$CASES recompute_$a"; done
CASES="$CASES transform_removed frame_flame_graph frame_heatmap silent_without_variable app_sanitizers"
pl_plan $CASES

# make builds them and ci/deps.sh installs xvfb
[ -x "$APP" ] || pl_fail_all "$APP not built (make)"
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
[ -x "$AGENT" ] || pl_fail_all "$AGENT not built (make)"
[ -x "$BURN" ] || pl_fail_all "$BURN not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1
# cairo rendering, as the other UI tests (viewer-ui-live-test.sh says why)
export GSK_RENDERER=${GSK_RENDERER:-cairo}
# no leak check of the app (viewer-ui-live-test.sh says why)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
asan_app=
ldd "$APP" 2>/dev/null | grep -q libasan && asan_app=1

# a real recording: burn's worker threads, 2 s at 499 Hz, frame pointers
CAP=$TMP/burn.plens
if ! "$AGENT" --output "$CAP" --callgraph fp --frequency 499 --duration 2 -- "$BURN" 2 2 \
	>"$CAP.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but $AGENT could not record: $(tail -c 300 "$CAP.log")"
fi

run_app() { # script out err [env…]
	local s=$1 o=$2 e=$3
	shift 3
	env "$@" PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$s \
		timeout 120 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$o" 2>"$e"
}

# each action, then a second for its frame to be painted (a recompute's
# line comes with the first frame showing its result; the next action
# would replace a pending one)
cat >"$TMP/timed.script" <<EOF
open $CAP
view flame
sleep 1
view heatmap
sleep 1
heatmap-select 0 0 0 1 heatmap_range
sleep 1
range-clear
sleep 1
pick-thread burn
sleep 1
pick-thread all
sleep 1
search hot_leaf search_matched
sleep 1
search-clear
sleep 1
transform merge hot_leaf
sleep 1
remove-crumb 0
sleep 1
view functions
sleep 1
sort-functions 1 asc
sleep 1
source compute_mid source_shown
sleep 1
EOF
run_app "$TMP/timed.script" "$TMP/app.out" "$TMP/app.err" PERFLENS_TIMING=1
rc=$?
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out" # the driver's own checks (and "not ok open" when it failed)
pl_was_reported open || ok open
lines=$(grep -a '^perflens-timing: ' "$TMP/app.err")
for a in $ACTIONS; do
	if grep -qE "^perflens-timing: recompute $a [0-9]+\.[0-9]+$" <<<"$lines"; then
		ok "recompute_$a"
	else
		fail "recompute_$a" "no 'recompute $a MS' line; the app printed: $(grep -a recompute <<<"$lines" | cut -d' ' -f2-3 | sort | uniq -c | tr '\n' ' ')"
	fi
done
# pushed and removed: two transform lines
n=$(grep -cE '^perflens-timing: recompute transform ' <<<"$lines")
[ "$n" -ge 2 ] && ok transform_removed || fail transform_removed "$n 'recompute transform' line(s) for a push and a removal"
for v in flame-graph heatmap; do
	c=frame_${v//-/_}
	grep -qE "^perflens-timing: frame [0-9]+\.[0-9]+( [a-z-]+)* $v( |$)" <<<"$lines" && ok "$c" ||
		fail "$c" "no frame line names $v; tags seen: $(grep -aoE '^perflens-timing: frame [0-9.]+ .*' <<<"$lines" | cut -d' ' -f4- | sort | uniq -c | tr '\n' ' ')"
done
if [ -n "$asan_app" ] && grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$TMP/app.err"; then
	fail app_sanitizers "exit $rc: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$TMP/app.err" | tr '\n' '|' | head -c 1500)"
else
	ok app_sanitizers
fi

# the same actions without the variable: not a line
run_app "$TMP/timed.script" "$TMP/quiet.out" "$TMP/quiet.err"
if grep -q '^not ok open' "$TMP/quiet.out"; then
	fail silent_without_variable "the app did not open the recording the second time: $(grep -a -m1 'not ok open' "$TMP/quiet.out")"
elif grep -q 'perflens-timing' "$TMP/quiet.err"; then
	fail silent_without_variable "$(grep -c perflens-timing "$TMP/quiet.err") timing lines without PERFLENS_TIMING"
else
	ok silent_without_variable
fi
