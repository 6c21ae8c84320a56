#!/usr/bin/env bash
# viewer-ui-names-test.sh — functions of one name in the real GTK app under
# Xvfb, on a real recording by the agent of the statics program
# (viewer/tests/source-dwarf: a static helper in a.c and one in b.c, a.c's
# looping four times as long), the command line's report as the oracle:
#   - the Functions table reads 'helper (a.c)' and 'helper (b.c)', as the
#     report prints them, each with the report's self samples, no row
#     twice; the flame graph labels its frames so;
#   - "Merge function" from the frame menu of a.c's helper takes that one
#     alone: b.c's keeps its row and samples, run_a's self gains a.c's
#     (the report's rows), the breadcrumb names it;
#     the SESSION.view file holds the anchored label, which the command
#     line's --merge reads alike;
#   - an old SESSION.view naming plain '^helper$' still loads, merging both;
#     then "Focus on subtree" of a.c's helper keeps a.c's samples alone.
# Screenshots of the Functions table and the flame graph go to
# $PL_UI_SCREENSHOTS, else to a temporary directory.
# The app is driven by the test-only script module (pl-ui-script.h).  Cases
# skip only where the kernel refuses perf or no X server can start.
set -u
export LC_ALL=C
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent}
DRIVER=$B/test/perflens-ui-script.so
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-names: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-names-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
cleanup() { pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT

CASES="open rows_distinct row_a row_b row_bare_absent flame_a flame_b screenshot_names-functions.png \
screenshot_names-flame.png transform_merge_helper__a_c_ \
merged_a_gone merged_b_kept merged_to_caller merged_flame_b merged_flame_a_gone merged_crumb \
view_file_label view_file_cli app_sanitizers old_view_restored old_view_a_gone old_view_b_gone \
old_view_run_a old_view_run_b transform_focus-subtree_helper__a_c_ subtree_a subtree_b_gone \
subtree_view_file reopen_app_sanitizers"
pl_plan $CASES

# make builds them; ci/deps.sh installs xvfb and gcc
[ -x "$APP" ] || pl_fail_all "$APP not built (make)"
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
[ -x "$AGENT" ] || pl_fail_all "$AGENT not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
SRC=$top/viewer/tests/source-dwarf
[ -f "$SRC/a.c" ] || pl_fail_all "$SRC/a.c not found (set PL_TOP)"
"${CC:-cc}" -O1 -g -fno-omit-frame-pointer -o "$TMP/statics" "$SRC/a.c" "$SRC/b.c" "$SRC/main.c" \
	2>"$TMP/cc.log" || pl_fail_all "cannot build the statics program: $(head -c 300 "$TMP/cc.log")"
CAP=$TMP/statics.plens
if ! "$AGENT" --output "$CAP" --callgraph dwarf --frequency 999 -- "$TMP/statics" 1.5 \
	>"$CAP.log" 2>&1; then
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but $AGENT could not record: $(tail -c 300 "$CAP.log")"
fi

# the report's function table, "SELF TOTAL SAMPLES<TAB>LABEL" per row (as
# viewer-cli-statics-test.sh reads it), the event the app shows: the main one
report_rows() { # out [filter…]
	local out=$1
	shift
	"$APP" report "$CAP" --top 0 "$@" 2>"$out.err" |
		awk '/^Top functions/ {on=1; getline; next} on && NF == 0 {exit}
		     on { l = substr($0, 30, 40); sub(/ +$/, "", l); print $3 "\t" l }' >"$out"
}
samples() { awk -F'\t' -v l="$2" '$2 == l { print $1; exit }' "$1"; }
report_rows "$TMP/plain.rows"
report_rows "$TMP/merge-a.rows" --merge 'helper (a.c)'
report_rows "$TMP/merge-both.rows" --merge '^helper$'
A=$(samples "$TMP/plain.rows" 'helper (a.c)') BB=$(samples "$TMP/plain.rows" 'helper (b.c)')
# a merged helper's samples go to its caller: run_a's self and a.c's
RA=$(samples "$TMP/plain.rows" run_a) RB=$(samples "$TMP/plain.rows" run_b)
[ -n "$A" ] && [ -n "$BB" ] && [ -n "$RA" ] && [ -n "$RB" ] || RA=
RUN_A=$((RA + A)) OLD_A=$((RA + A)) OLD_B=$((RB + BB))
echo "# report: helper (a.c) $A, helper (b.c) $BB, run_a $RA, run_b $RB; --merge 'helper (a.c)':" \
	"run_a $(samples "$TMP/merge-a.rows" run_a); --merge '^helper\$': run_a" \
	"$(samples "$TMP/merge-both.rows" run_a), run_b $(samples "$TMP/merge-both.rows" run_b)"
[ -n "$RA" ] ||
	pl_fail_all "the report has no 'helper (a.c)' / 'helper (b.c)' rows: $(tr '\t\n' ' |' <"$TMP/plain.rows" | head -c 300)"

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
	if [ -n "$asan_app" ] && grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$3"; then
		fail "$1" "exit $2: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$3" | tr '\n' '|' | head -c 1500)"
	else
		ok "$1"
	fi
}
run_app() { # script out err
	PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$1 \
		timeout 120 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$2" 2>"$3"
}

cat >"$TMP/merge.script" <<EOF
open $CAP
expect-rows-distinct rows_distinct
expect-row row_a $A helper (a.c)
expect-row row_b $BB helper (b.c)
expect-row row_bare_absent absent helper
expect-flame-label flame_a present helper (a.c)
expect-flame-label flame_b present helper (b.c)
view functions
screenshot $SHOTS/names-functions.png
view flame
screenshot $SHOTS/names-flame.png
transform merge helper (a.c)
expect-row merged_a_gone absent helper (a.c)
expect-row merged_b_kept $BB helper (b.c)
expect-row merged_to_caller $RUN_A run_a
expect-flame-label merged_flame_b present helper (b.c)
expect-flame-label merged_flame_a_gone absent helper (a.c)
expect-crumb 0 merged_crumb Merge: helper (a.c)
EOF
run_app "$TMP/merge.script" "$TMP/app.out" "$TMP/app.err"
rc=$?
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -aE '^# ' "$TMP/app.out"
grep -q '^ok open$' "$TMP/app.out" || ok open
sanitizer_clean app_sanitizers "$rc" "$TMP/app.err"

# the stack kept beside the session names a.c's helper by its label, and
# the command line reads that pattern as the app does
VIEW=$CAP.view
want=$(printf 'merge\t^helper \\(a\\.c\\)$')
if [ "$(cat "$VIEW" 2>/dev/null)" = "$want" ]; then ok view_file_label
else fail view_file_label "$VIEW holds '$(tr '\t\n' '>|' <"$VIEW" 2>/dev/null)', not '$(echo "$want" | tr '\t' '>')'"; fi
report_rows "$TMP/view.rows" --merge "$(cut -f2 "$VIEW" 2>/dev/null)"
if [ -s "$TMP/view.rows" ] && cmp -s "$TMP/view.rows" "$TMP/merge-a.rows"; then ok view_file_cli
else fail view_file_cli "report --merge '$(cut -f2 "$VIEW" 2>/dev/null)' differs from --merge 'helper (a.c)'"; fi

# a view file of before: the plain name, which takes both helpers
printf 'merge\t^helper$\n' >"$VIEW"
chmod 600 "$VIEW"
cat >"$TMP/old.script" <<EOF
open $CAP
expect-crumbs 1 old_view_restored
expect-row old_view_a_gone absent helper (a.c)
expect-row old_view_b_gone absent helper (b.c)
expect-row old_view_run_a $OLD_A run_a
expect-row old_view_run_b $OLD_B run_b
reset-crumbs
transform focus-subtree helper (a.c)
expect-row subtree_a $A helper (a.c)
expect-row subtree_b_gone absent helper (b.c)
EOF
run_app "$TMP/old.script" "$TMP/app2.out" "$TMP/app2.err"
rc=$?
pl_no_display "$TMP/app2.err"
pl_relay "$TMP/app2.out"
grep -aE '^# ' "$TMP/app2.out"
sanitizer_clean reopen_app_sanitizers "$rc" "$TMP/app2.err"
# the call path kept names a.c's helper by its label (the frames below
# main are libc's, whichever they are)
line=$(cat "$VIEW" 2>/dev/null)
case $line in
"focus-subtree	"*";main;run_a;helper (a.c)") ok subtree_view_file ;;
*) fail subtree_view_file "$VIEW holds '$(echo "$line" | tr '\t\n' '>|')'" ;;
esac
pl_unreported "the app did not report it (exit $rc): $(tail -c 400 "$TMP/app2.err" | tr '\n' '|')"
exit 0
