#!/usr/bin/env bash
# viewer-ui-self-contained-test.sh — a self-contained session in the real
# GTK app under Xvfb: burn, built -g from a copy of its source in a
# temporary directory, is recorded by the real agent (dwarf call graphs)
# into the app's sessions directory; the app exports it through the
# Sessions page's Export… (format "Self-contained session": the dialog's
# response calls pl_sessions_view_export, as the script does).  Then the
# binary and the source are deleted, and a second app opens the export:
# hot_leaf is named in the profile and drawn in the flame graph, its
# source opens, and the window says where and when it was symbolized.
# The original, opened the same way, no longer names hot_leaf (the files
# are really gone).  The screenshot goes to $PL_UI_SCREENSHOTS (docs/screenshots
# to refresh the README's self-contained.png), else to a temporary directory.
set -u
B=${PL_BUILD:-build}
TOP=${PL_TOP:-.}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
DRIVER=$B/test/perflens-ui-script.so
. "$TOP/test/pl-test.sh" || { echo "not ok viewer-ui-self-contained: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-uiself-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
CASES="export_self_contained export_file_0600 original_needs_files open named_hot_leaf flame_hot_leaf symbolized_note source_hot_leaf screenshot_taken app_sanitizers"
pl_plan $CASES

[ -x "$APP" ] || pl_fail_all "$APP not built (make)"
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
[ -x "$AGENT" ] || pl_fail_all "$AGENT not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache HOME=$TMP/home
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=${GSK_RENDERER:-cairo}
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=
mkdir -p "$SHOTS" "$TMP/src" "$TMP/bin" "$TMP/out" "$HOME" "$XDG_DATA_HOME/perflens/sessions"
chmod 700 "$XDG_DATA_HOME/perflens" "$XDG_DATA_HOME/perflens/sessions"
asan_app=
ldd "$APP" 2>/dev/null | grep -q libasan && asan_app=1

cp "$TOP/test/workloads/burn.c" "$TMP/src/burn.c"
cc -O1 -g -fno-omit-frame-pointer -fno-inline-functions-called-once -pthread \
	-o "$TMP/bin/burn" "$TMP/src/burn.c" || pl_fail_all "cannot build burn"
CAP=$XDG_DATA_HOME/perflens/sessions/burn-orig.plens OUT=$TMP/out/burn-self.plens
if ! "$AGENT" --output "$CAP" --callgraph dwarf --frequency 499 --duration 3 -- "$TMP/bin/burn" 3 2 \
	>"$TMP/agent.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but the agent could not record: $(tail -c 300 "$TMP/agent.log")"
fi

run_app() { # script out err
	PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$1 \
		timeout 180 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$2" 2>"$3"
}

# ─── the export, with the files here ───────────────────────────────────
cat >"$TMP/export.script" <<EOF2
sessions
session-export burn-orig plens-symbolized $OUT export_self_contained
EOF2
run_app "$TMP/export.script" "$TMP/export.out" "$TMP/export.err"
pl_no_display "$TMP/export.err"
pl_relay "$TMP/export.out"
grep -aE '^# ' "$TMP/export.out"
if [ -f "$OUT" ] && [ "$(stat -c %a "$OUT")" = 600 ]; then ok export_file_0600
else fail export_file_0600 "$(ls -l "$OUT" 2>&1)"; fi

# ─── the files go; the export opens elsewhere ───────────────────────────
rm -rf "$TMP/src" "$TMP/bin"
cat >"$TMP/orig.script" <<EOF2
open $CAP
expect-function hot_leaf no original_needs_files
EOF2
run_app "$TMP/orig.script" "$TMP/orig.out" "$TMP/orig.err"
pl_relay "$TMP/orig.out"

cat >"$TMP/open.script" <<EOF2
open $OUT
expect-function hot_leaf yes named_hot_leaf
expect-flame hot_leaf flame_hot_leaf
expect-label symbolized_note Self-contained session: symbolized on
source hot_leaf source_hot_leaf
view flame
screenshot $SHOTS/self-contained.png
EOF2
run_app "$TMP/open.script" "$TMP/open.out" "$TMP/open.err"
rc=$?
pl_relay "$TMP/open.out"
grep -aE '^# ' "$TMP/open.out"
grep -q '^ok open$' "$TMP/open.out" || ok open
if [ -s "$SHOTS/self-contained.png" ]; then ok screenshot_taken; echo "# $SHOTS/self-contained.png"
else fail screenshot_taken "no $SHOTS/self-contained.png: $(tail -3 "$TMP/open.err" | tr '\n' '|')"; fi
if [ -n "$asan_app" ] && grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$TMP/open.err" "$TMP/export.err"; then
	fail app_sanitizers "exit $rc: $(grep -ahE -m1 -A14 'ERROR: |runtime error:' "$TMP/open.err" "$TMP/export.err" | tr '\n' '|' | head -c 1500)"
else ok app_sanitizers; fi
