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
TMP=$(mktemp -d /tmp/plv-mod-XXXXXX)
trap '[ -n "${PL_KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
CASES="cli_links_no_gtk report_without_module module_next_to_exe module_in_prefix_lib missing_module_error missing_gtk_error stale_module_error"
skip_all() { for c in $CASES; do echo "skip $c: $1"; done; exit 0; }
[ -x "$B/perflens" ] || skip_all "$B/perflens not built"
[ -f "$B/perflens-ui.so" ] || skip_all "$B/perflens-ui.so not built (no gtk4 development files)"
[ -x "$B/workloads/burn" ] || skip_all "$B/workloads/burn not built"
ok() { echo "ok $1"; }
fail() { echo "not ok $1: $2"; }

if ldd "$B/perflens" | grep -q 'libgtk'; then
	fail cli_links_no_gtk "$(ldd "$B/perflens" | grep libgtk)"
else
	ok cli_links_no_gtk
fi

# a .plens of the workload, read with the executable alone in a directory
mkdir -p "$TMP/alone"
cp "$B/perflens" "$TMP/alone/"
if "$B/perflens-agent" --output "$TMP/burn.plens" -- "$B/workloads/burn" 1 2 >/dev/null 2>"$TMP/agent.err"; then
	if "$TMP/alone/perflens" report "$TMP/burn.plens" --top 5 >"$TMP/report.out" 2>&1 &&
		grep -q hot_leaf "$TMP/report.out"; then
		ok report_without_module
	else
		fail report_without_module "$(head -c 300 "$TMP/report.out")"
	fi
else
	echo "skip report_without_module: the agent could not record: $(head -c 200 "$TMP/agent.err")"
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

DISPLAY=:97 WAYLAND_DISPLAY= "$TMP/alone/perflens" >"$TMP/missing.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'perflens-ui.so is missing' "$TMP/missing.out" &&
	grep -q 'reinstall perflens' "$TMP/missing.out"; then
	ok missing_module_error
else
	fail missing_module_error "status $rc: $(head -c 300 "$TMP/missing.out")"
fi

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
	DISPLAY=:97 WAYLAND_DISPLAY= "$TMP/nogtk/perflens" >"$TMP/nogtk.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'libgtk-4-absent.so.1' "$TMP/nogtk.out" &&
		grep -q 'apt install libgtk-4-1' "$TMP/nogtk.out"; then
		ok missing_gtk_error
	else
		fail missing_gtk_error "status $rc: $(head -c 300 "$TMP/nogtk.out")"
	fi
else
	echo "skip missing_gtk_error: cannot build a stand-in module: $(head -c 200 "$TMP/cc.err")"
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
	DISPLAY=:97 WAYLAND_DISPLAY= "$TMP/stale/perflens" >"$TMP/stale.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'from another build of perflens' "$TMP/stale.out" &&
		grep -q "this perflens $key" "$TMP/stale.out" && ! grep -q 'cannot open display' "$TMP/stale.out"; then
		ok stale_module_error
	else
		fail stale_module_error "status $rc: $(head -c 300 "$TMP/stale.out")"
	fi
else
	fail stale_module_error "cannot make a module with another key (key '$key' from $B/viewer/pl-abi.h)"
fi
