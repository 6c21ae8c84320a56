#!/usr/bin/env bash
# viewer-ui-source-test.sh — the Source tab in the real GTK app under Xvfb
# (issue 17, "Source from DWARF"), on real recordings made by the agent:
#   - burn: the tab shown before any function is chosen shows the hottest
#     one (hot_leaf) at its hottest line, scrolled into view once laid out;
#     a click (xdotool, through X) on that line switches to the disassembly
#     with exactly the instructions addr2line puts on it marked; a click on
#     the hottest instruction goes back to the line addr2line gives it;
#   - statics (viewer/tests/source-dwarf: a static helper in a.c and one in
#     b.c): each opens in its own file at its definition (nm -l is the
#     oracle), its hot line in view.
# The app is driven by the test-only script module (pl-ui-script.h).
# Cases skip only where the kernel refuses perf or no X server can start.
#
# The screenshot goes to $PL_UI_SCREENSHOTS (docs/screenshots to refresh
# the README's source.png), else to a temporary directory.
set -u
B=${PL_BUILD:-build}
APP=$B/perflens AGENT=${PL_AGENT:-$B/perflens-agent} BURN=$B/workloads/burn
DRIVER=$B/test/perflens-ui-script.so
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-ui-source: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-src-XXXXXX)
SHOTS=${PL_UI_SCREENSHOTS:-$TMP/shots}
cleanup() { pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT

CASES="source_hottest_shown source_hot_leaf source_line_to_insns insn_to_source_line \
statics_a_file statics_b_file statics_a_source statics_b_source app_sanitizers"
pl_plan $CASES

# make builds them; ci/deps.sh installs xvfb, xdotool, binutils, gcc
[ -x "$APP" ] || pl_fail_all "$APP not built (make)"
[ -f "$DRIVER" ] || pl_fail_all "$DRIVER not built (make)"
[ -x "$AGENT" ] || pl_fail_all "$AGENT not built (make)"
[ -x "$BURN" ] || pl_fail_all "$BURN not built (make)"
command -v xvfb-run >/dev/null || pl_fail_all "xvfb-run not installed (xvfb: ci/deps.sh)"
command -v xdotool >/dev/null || pl_fail_all "xdotool not installed (ci/deps.sh)"
top=${PL_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
SRC=$top/viewer/tests/source-dwarf
[ -f "$SRC/a.c" ] || pl_fail_all "$SRC/a.c not found (set PL_TOP)"
CC=${CC:-cc}
"$CC" -O1 -g -fno-omit-frame-pointer -o "$TMP/statics" "$SRC/a.c" "$SRC/b.c" "$SRC/main.c" \
	2>"$TMP/cc.log" || pl_fail_all "cannot build the statics program: $(head -c 300 "$TMP/cc.log")"

record() { # out prog args…
	local out=$1
	shift
	"$AGENT" --output "$out" --frequency 499 --duration 3 -- "$@" >"$out.log" 2>&1 && return 0
	if why=$(pl_perf_refused); then pl_skip_all "$why"; fi
	pl_fail_all "the kernel allows perf, but $AGENT could not record: $(tail -c 300 "$out.log")"
}
record "$TMP/burn.plens" "$BURN" 3 2
record "$TMP/statics.plens" "$TMP/statics" 3

export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache
export GDK_BACKEND=x11 GTK_A11Y=none NO_AT_BRIDGE=1
# cairo rendering, as the other UI tests (viewer-ui-live-test.sh says why)
export GSK_RENDERER=${GSK_RENDERER:-cairo}
# no leak check of the app (viewer-ui-live-test.sh says why)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
mkdir -p "$SHOTS"

cat >"$TMP/app.script" <<EOF
open $TMP/burn.plens
expect-source-hottest source_hottest_shown
screenshot $SHOTS/source.png
source hot_leaf source_hot_leaf
source-click-line source_line_to_insns
source-click-insn insn_to_source_line
open $TMP/statics.plens
source helper@a.c statics_a_source
source helper@b.c statics_b_source
EOF
PERFLENS_UI_TEST_MODULE=$DRIVER PERFLENS_UI_SCRIPT=$TMP/app.script \
	timeout 180 xvfb-run -a -s '-screen 0 1600x1000x24' "$APP" >"$TMP/app.out" 2>"$TMP/app.err"
rc=$?
pl_no_display "$TMP/app.err"
pl_relay "$TMP/app.out"
grep -aE '^# ' "$TMP/app.out"

# the files each helper opened in, against nm -l's two definitions
for f in a b; do
	want=$(nm -l "$TMP/statics" | awk -v f="/$f.c:" '$3 == "helper" && index($4, f) {print $4}')
	got=$(grep -aoE "^# helper@$f.c: hot line [^:]+" "$TMP/app.out" | sed 's/.*hot line //')
	if [ -z "$want" ]; then
		fail "statics_${f}_file" "nm -l names no helper in $f.c"
	elif [ "$got" = "${want%:*}" ]; then
		ok "statics_${f}_file"
	else
		fail "statics_${f}_file" "the Source tab showed '$got', nm -l defines helper at $want"
	fi
done
if ldd "$APP" 2>/dev/null | grep -q libasan &&
	grep -qaE 'ERROR: AddressSanitizer|runtime error:' "$TMP/app.err"; then
	fail app_sanitizers "exit $rc: $(grep -aE -m1 -A14 'ERROR: |runtime error:' "$TMP/app.err" | tr '\n' '|' | head -c 1500)"
else
	ok app_sanitizers
fi
pl_unreported "the app did not report it (exit $rc): $(tail -c 400 "$TMP/app.err" | tr '\n' '|')"
exit 0
