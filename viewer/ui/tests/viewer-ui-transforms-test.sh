#!/usr/bin/env bash
# viewer-ui-transforms-test.sh — the call-tree transforms in the real GTK
# app under Xvfb, on a real recording of burn made by the agent: each is
# applied through the frame menu's own item (its model built for the
# frame, its action activated on the window), and the flame graph, the
# function table and the flame chart must show it; the breadcrumbs count
# and name them, one is removed (the rest applied again), the right-click
# menu is photographed with two breadcrumbs above the views; then a second
# app instance opens the same session and finds the stack restored (the
# SESSION.view file, 0600), inverts the flame graph, and Reset clears it
# (the file goes).  The app is driven by the test-only script module
# ($B/test/perflens-ui-script.so, pl-ui-script.h).  Cases skip only where
# the kernel refuses perf or no X server can start; PL_AGENT is the agent.
#
# The screenshot goes to $PL_UI_SCREENSHOTS (docs/ to refresh the README's
# transforms.png), else to a temporary directory.
set -u
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
DRIVER=$B/test/perflens-ui-script.so
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-transforms: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-tx-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
cleanup() { pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT

CASES="open transform_merge_hot_leaf merge_table_hides merge_flame_hides merge_self_to_caller \
merge_chart_hides transform_focus_worker_loop focus_flame_root crumbs_two crumb_merge_label \
crumb_focus_label frame_menu_shot remove_crumb_one removed_merge_back removed_focus_kept \
transform_drop_sort_step drop_table_hides table_menu_shot view_file_0600 view_file_stack \
reopen_restored reopen_order reopen_order_drop reopen_focus_applied reopen_drop_applied \
transform_focus-subtree_compute_mid subtree_flame_root subtree_crumb screenshot_inverted.png inverted_top_self \
reset_clears timeline_counts_all transform_drop_worker_loop timeline_drop_counts chart_drop chart_drop_callee chart_back view_file_removed app_sanitizers reopen_app_sanitizers"
pl_plan $CASES

# make builds them and ci/deps.sh installs xvfb, xdotool, imagemagick
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
mkdir -p "$SHOTS"
asan_app=
ldd "$APP" 2>/dev/null | grep -q libasan && asan_app=1
sanitizer_clean() { # case exit-status stderr-file
	[ -n "$asan_app" ] || { ok "$1"; return 0; }
	if grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$3"; then
		fail "$1" "exit $2: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$3" | tr '\n' '|' | head -c 1500)"
	else
		ok "$1"
	fi
}

# a real recording: burn's worker threads (worker_loop → compute_outer →
# compute_mid → hot_leaf, sort_step, search_step), 3 s at 499 Hz, with
# DWARF call graphs: with frame pointers the frameless leaf hot_leaf
# hides its caller compute_mid (the Makefile's note on workloads)
CAP=$TMP/burn.plens
if ! "$AGENT" --output "$CAP" --callgraph dwarf --frequency 499 --duration 3 -- "$BURN" 3 2 \
	>"$CAP.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but $AGENT could not record: $(tail -c 300 "$CAP.log")"
fi

run_app() { # script out err
	PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$1 \
		timeout 120 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$2" 2>"$3"
}

cat >"$TMP/apply.script" <<EOF
open $CAP
note-self compute_mid
transform merge hot_leaf
expect-table hot_leaf absent merge_table_hides
expect-flame-absent hot_leaf merge_flame_hides
expect-self-grew compute_mid merge_self_to_caller
expect-chart hot_leaf absent merge_chart_hides
transform focus worker_loop
expect-flame-root worker_loop focus_flame_root
expect-crumbs 2 crumbs_two
expect-crumb 0 crumb_merge_label Merge: hot_leaf
expect-crumb 1 crumb_focus_label Focus: worker_loop
menu-shot flame compute_mid $SHOTS/transforms.png frame_menu_shot
remove-crumb 0
expect-crumbs 1 remove_crumb_one
expect-table hot_leaf present removed_merge_back
expect-flame-root worker_loop removed_focus_kept
transform drop sort_step
expect-table sort_step absent drop_table_hides
menu-shot functions compute_mid $SHOTS/transforms-table.png table_menu_shot
view flame
EOF
run_app "$TMP/apply.script" "$TMP/app.out" "$TMP/app.err"
rc=$?
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -aE '^# ' "$TMP/app.out"
grep -q '^ok open$' "$TMP/app.out" || ok open
sanitizer_clean app_sanitizers "$rc" "$TMP/app.err"

# the stack beside the session: 0600, in the order applied
VIEW=$CAP.view
if [ ! -f "$VIEW" ]; then
	fail view_file_0600 "no $VIEW"
	fail view_file_stack "no $VIEW"
else
	mode=$(stat -c %a "$VIEW")
	[ "$mode" = 600 ] && ok view_file_0600 || fail view_file_0600 "$VIEW is mode $mode"
	want=$(printf 'focus\t^worker_loop$\ndrop\t^sort_step$')
	[ "$(cat "$VIEW")" = "$want" ] && ok view_file_stack ||
		fail view_file_stack "$VIEW holds: $(tr '\t\n' '>|' <"$VIEW")"
fi

# Dropping worker_loop leaves burn-1 the samples whose stack does not hold
# it: a DWARF unwind cut short in a leaf, the thread's first instructions.
# How many is the sampling's luck, so the oracle is the command line's count
# for burn-1 under the same transform, not zero.
drop_left=$("$APP" report "$CAP" --drop '^worker_loop$' 2>/dev/null |
	awk '/^Threads:/ { t = 1; next } t && $3 == "burn-1" { print $4; exit }')
[ -n "$drop_left" ] || drop_left="(the report lists no burn-1)"
cat >"$TMP/reopen.script" <<EOF
open $CAP
expect-crumbs 2 reopen_restored
expect-crumb 0 reopen_order Focus: worker_loop
expect-crumb 1 reopen_order_drop Drop samples with: sort_step
expect-flame-root worker_loop reopen_focus_applied
expect-table sort_step absent reopen_drop_applied
transform focus-subtree compute_mid
expect-flame-root compute_mid subtree_flame_root
expect-crumb 2 subtree_crumb Focus on subtree: worker_loop → compute_outer → compute_mid
inverted on
screenshot $SHOTS/inverted.png
expect-flame-top hot_leaf inverted_top_self
inverted off
reset-crumbs
expect-crumbs 0 reset_clears
expect-thread-samples burn-1 some timeline_counts_all
transform drop worker_loop
expect-thread-samples burn-1 $drop_left timeline_drop_counts
expect-chart worker_loop absent chart_drop
expect-chart sort_step absent chart_drop_callee
remove-crumb 0
expect-chart worker_loop present chart_back
EOF
run_app "$TMP/reopen.script" "$TMP/app2.out" "$TMP/app2.err"
rc=$?
pl_no_display "$TMP/app2.err"
pl_relay "$TMP/app2.out"
grep -aE '^# ' "$TMP/app2.out"
sanitizer_clean reopen_app_sanitizers "$rc" "$TMP/app2.err"
[ ! -e "$VIEW" ] && ok view_file_removed || fail view_file_removed "$VIEW is still there after the last crumb went"
pl_unreported "the app did not report it (exit $rc): $(tail -c 400 "$TMP/app2.err" | tr '\n' '|')"
exit 0
