#!/usr/bin/env bash
# viewer-app-module-test.sh — `perflens` loads the GTK app as a module
# (perflens-ui.so, viewer/cli/app.c) and the command line links no GTK:
#   - perflens has no GTK among its libraries; report runs without the module;
#   - the module is found next to the executable (build dir, release
#     tarball) and in ../lib/perflens/ (make install), and GTK then runs:
#     with a display that does not exist, GTK's own "cannot open display"
#     proves the module loaded;
#   - without the module, or with a module whose GTK is not installed, the
#     error says what to do (reinstall perflens / install libgtk-4-1);
#   - a module from another build (its interface key differs) is refused.
set -u
B=${PL_BUILD:-build}
AGENT=${PL_AGENT:-$B/perflens-agent} # the agent under test
. "${PL_TOP:-.}/test/pl-test.sh" || { echo "not ok viewer-app-module: cannot read test/pl-test.sh (set PL_TOP)"; exit 1; }
TMP=$(mktemp -d /tmp/plv-mod-XXXXXX)
trap 'pl_unreported; [ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
CASES="cli_links_no_gtk report_without_module module_next_to_exe module_in_prefix_lib missing_module_error missing_gtk_error stale_module_error"
pl_plan $CASES
# make builds them (ci/deps.sh installs gtk4's development files)
fail_all() { for c in $CASES; do fail "$c" "$1"; done; exit 1; }
[ -x "$B/perflens" ] || fail_all "$B/perflens not built"
[ -f "$B/perflens-ui.so" ] || fail_all "$B/perflens-ui.so not built (no gtk4 development files: ci/deps.sh)"
[ -x "$B/workloads/burn" ] || fail_all "$B/workloads/burn not built"

if ldd "$B/perflens" | grep -q 'libgtk'; then
	fail cli_links_no_gtk "$(ldd "$B/perflens" | grep libgtk)"
else
	ok cli_links_no_gtk
fi

# a .plens of the workload, read with the executable alone in a directory
mkdir -p "$TMP/alone"
cp "$B/perflens" "$TMP/alone/"
if "$AGENT" --output "$TMP/burn.plens" -- "$B/workloads/burn" 1 2 >/dev/null 2>"$TMP/agent.err"; then
	if "$TMP/alone/perflens" report "$TMP/burn.plens" --top 5 >"$TMP/report.out" 2>&1 &&
		grep -q hot_leaf "$TMP/report.out"; then
		ok report_without_module
	else
		fail report_without_module "$(head -c 300 "$TMP/report.out")"
	fi
elif why=$(pl_perf_refused); then
	skip report_without_module "$why"
else
	fail report_without_module "the kernel allows perf, but $AGENT could not record: $(head -c 200 "$TMP/agent.err")"
fi

# The module loaded and GTK started: it then fails on the display.
gtk_ran() { grep -q 'cannot open display' "$1" && ! grep -q 'perflens-ui.so' "$1"; }

mkdir -p "$TMP/tarball"
cp "$B/perflens" "$B/perflens-ui.so" "$TMP/tarball/"
DISPLAY=:97 WAYLAND_DISPLAY= "$TMP/tarball/perflens" >"$TMP/next.out" 2>&1
if gtk_ran "$TMP/next.out"; then ok module_next_to_exe; else fail module_next_to_exe "$(head -c 300 "$TMP/next.out")"; fi

mkdir -p "$TMP/prefix/bin" "$TMP/prefix/lib/perflens"
cp "$B/perflens" "$TMP/prefix/bin/"
cp "$B/perflens-ui.so" "$TMP/prefix/lib/perflens/"
DISPLAY=:97 WAYLAND_DISPLAY= "$TMP/prefix/bin/perflens" >"$TMP/prefix.out" 2>&1
if gtk_ran "$TMP/prefix.out"; then ok module_in_prefix_lib; else fail module_in_prefix_lib "$(head -c 300 "$TMP/prefix.out")"; fi

# refused CASE DIR PATTERN...: DIR/perflens, asked for the app, exits 2
# with every pattern in its message, and GTK never starts.
refused() {
	local c=$1 dir=$2 out=$TMP/$1.out rc p
	shift 2
	DISPLAY=:97 WAYLAND_DISPLAY= "$dir/perflens" >"$out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { fail "$c" "status $rc: $(head -c 300 "$out")"; return; }
	for p in "$@"; do
		grep -q -- "$p" "$out" || { fail "$c" "no '$p' in: $(head -c 300 "$out")"; return; }
	done
	if grep -q 'cannot open display' "$out"; then fail "$c" "GTK started: $(head -c 300 "$out")"; return; fi
	ok "$c"
}

refused missing_module_error "$TMP/alone" 'perflens-ui.so is missing' 'reinstall perflens'

# A module that needs a GTK library this machine lacks: built here against
# a stand-in library that is then removed, as on a machine without GTK.
CC=${CC:-cc}
mkdir -p "$TMP/nogtk" "$TMP/stub"
echo 'int gtk_stub(void); int gtk_stub(void) { return 0; }' >"$TMP/stub/s.c"
echo 'int gtk_stub(void); int pl_ui_run(int c, char **v); int pl_ui_run(int c, char **v) { return gtk_stub(); }' >"$TMP/stub/m.c"
if "$CC" -shared -fPIC -Wl,-soname,libgtk-4-absent.so.1 -o "$TMP/stub/libgtk-4-absent.so.1" "$TMP/stub/s.c" 2>"$TMP/cc.err" &&
	"$CC" -shared -fPIC -o "$TMP/nogtk/perflens-ui.so" "$TMP/stub/m.c" "$TMP/stub/libgtk-4-absent.so.1" 2>>"$TMP/cc.err"; then
	rm -rf "$TMP/stub"
	cp "$B/perflens" "$TMP/nogtk/"
	refused missing_gtk_error "$TMP/nogtk" 'libgtk-4-absent.so.1' 'apt install libgtk-4-1'
else
	fail missing_gtk_error "cannot build a stand-in module: $(head -c 200 "$TMP/cc.err")"
fi

# A module from another build: the same module with its interface key
# (pl_ui_abi, PL_VIEWER_ABI of build/viewer/pl-abi.h) changed in place.
key=$(sed -n 's/^#define PL_VIEWER_ABI "\(.*\)"$/\1/p' "$B/viewer/pl-abi.h" 2>/dev/null)
mkdir -p "$TMP/stale"
cp "$B/perflens" "$TMP/stale/"
if [ -n "$key" ] && python3 - "$B/perflens-ui.so" "$TMP/stale/perflens-ui.so" "$key" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
key = sys.argv[3].encode()
other = bytes(b'0123456789abcdef'[(b'0123456789abcdef'.index(c) + 1) % 16] for c in key)
assert data.count(key + b'\0') == 1, 'the key is not in the module once'
open(sys.argv[2], 'wb').write(data.replace(key + b'\0', other + b'\0'))
PY
then
	refused stale_module_error "$TMP/stale" 'from another build of perflens' "this perflens $key"
else
	fail stale_module_error "cannot make a module with another key (key '$key' from $B/viewer/pl-abi.h)"
fi
